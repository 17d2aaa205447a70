package bench

import (
	"reflect"
	"strings"
	"testing"
)

// A problem is listed and told as a progress line.
func TestProblem(t *testing.T) {
	var progress strings.Builder
	s := Settings{Progress: &progress}
	var problems []string
	s.Problem(&problems, "phase %s: %v", "quiet", "timed out")
	if want := []string{"phase quiet: timed out"}; !reflect.DeepEqual(problems, want) {
		t.Errorf("problems %q, want %q", problems, want)
	}
	if got, want := progress.String(), "  problem: phase quiet: timed out\n"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
}
