package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/csi-protect/external-provisioner/internal/testutil/poll"
)

// WaitFor calls cond every pollInterval until it returns true, a component of
// the stack exits on its own, or timeout (or ctx) ends. An error from cond
// only means "not yet"; the last one is reported if the wait fails, so make
// it say what was seen. A component that died is the likelier cause of a
// wait that never ends, so that is checked on every round and reported
// first.
func (s *Stack) WaitFor(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	return s.WaitEvery(ctx, pollInterval, timeout, what, cond)
}

// WaitEvery is WaitFor calling cond every interval, for moments that last
// only milliseconds.
func (s *Stack) WaitEvery(ctx context.Context, interval, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	err := poll.Until(ctx, interval, cond, s.CheckAlive)
	var expired *poll.Expired
	switch {
	case err == nil:
		s.logger.V(2).Info("Waited", "for", what, "duration", time.Since(start).Round(time.Millisecond))
		return nil
	case !errors.As(err, &expired):
		return fmt.Errorf("while waiting for %s: %w", what, err)
	}
	// Say which limit ended the wait: this one, or the caller's.
	msg := fmt.Sprintf("gave up waiting for %s after %s", what, timeout)
	if parent.Err() != nil {
		msg = fmt.Sprintf("stopped waiting for %s: %v", what, context.Cause(parent))
	}
	if expired.Last != nil {
		msg += fmt.Sprintf(" (last: %v)", expired.Last)
	}
	return errors.New(msg)
}

// LogFiles returns the log of every component: sidecars, driver,
// kube-controller-manager, kube-apiserver, etcd.
func (s *Stack) LogFiles() []string {
	var logs []string
	for _, p := range s.processes() {
		if p.LogFile() != "" {
			logs = append(logs, p.LogFile())
		}
	}
	return logs
}

// maxLogLine is where WriteLogTails cuts long lines: the sidecar dumps whole
// objects at -v=4, and the start of a line is enough to see what happened.
const maxLogLine = 400

// WriteLogTails writes the last n lines of each component's log to w, for a
// failed test or demo. The full logs stay in the work dir.
func (s *Stack) WriteLogTails(w io.Writer, n int) {
	for _, path := range s.LogFiles() {
		lines := tailLines(path, n)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n--- last %d lines of %s\n", len(lines), path)
		for _, l := range lines {
			if len(l) > maxLogLine {
				l = l[:maxLogLine] + " [...]"
			}
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
