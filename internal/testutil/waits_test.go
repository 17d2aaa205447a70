package testutil

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// fatals is a testing.TB whose Fatalf and Errorf only record, to test
// failures.
type fatals struct {
	testing.TB
	msgs []string
}

func (f *fatals) Helper() {}

func (f *fatals) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *fatals) Errorf(format string, args ...any) { f.Fatalf(format, args...) }

func TestEventuallyWaitsForTheConditionAndNamesItWhenItFails(t *testing.T) {
	calls := 0
	Eventually(t, 5*time.Second, "the third call", func() bool { calls++; return calls == 3 })
	if calls != 3 {
		t.Errorf("cond called %d times, want 3", calls)
	}
	f := &fatals{TB: t}
	Eventually(f, 0, "nothing", func() bool { return false })
	if len(f.msgs) != 1 || f.msgs[0] != "timed out waiting for nothing" {
		t.Errorf("failures %q", f.msgs)
	}
}

// A failed wait says what the check saw last.
func TestAwaitSaysWhatItSawLast(t *testing.T) {
	calls := 0
	Await(t, 5*time.Second, "the second call", func() error {
		calls++
		if calls < 2 {
			return errors.New("first call")
		}
		return nil
	})
	f := &fatals{TB: t}
	Await(f, 0, "two volumes", func() error { return errors.New("saw 1 volume") })
	if len(f.msgs) != 1 || f.msgs[0] != "timed out waiting for two volumes: saw 1 volume" {
		t.Errorf("failures %q", f.msgs)
	}
}

func TestConsistentlyFailsAtTheFirstBreakAndPassesWhenNoneComes(t *testing.T) {
	Consistently(t, 20*time.Millisecond, func() error { return nil })

	f := &fatals{TB: t}
	calls := 0
	Consistently(f, 5*time.Second, func() error {
		calls++
		if calls == 3 {
			return errors.New("a retry came")
		}
		return nil
	})
	if len(f.msgs) != 1 || f.msgs[0] != "a retry came" {
		t.Errorf("failures %q, want the check's error once", f.msgs)
	}
	if calls != 3 {
		t.Errorf("check called %d times, want it to stop at the break (3)", calls)
	}
}
