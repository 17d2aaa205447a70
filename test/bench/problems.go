package bench

import (
	"fmt"
	"strings"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Problem records what went wrong in a run in problems, which its report
// lists, and tells it as a progress line.
func (s Settings) Problem(problems *[]string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	*problems = append(*problems, msg)
	s.Progressf("  problem: %s", msg)
}

// EndRun records measureErr, the error that ended a run's measures early,
// if any, with the last lines of the stack's logs, then stops the stack.
func (s Settings) EndRun(stack *framework.Stack, measureErr error, problems *[]string) {
	if measureErr != nil {
		s.Problem(problems, "%v", measureErr)
		var tails strings.Builder
		stack.WriteLogTails(&tails, 15)
		s.Progressf("%s", tails.String())
	}
	if err := stack.Stop(); err != nil {
		s.Problem(problems, "stack did not stop cleanly: %v", err)
	}
}
