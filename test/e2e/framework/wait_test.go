package framework

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"
)

// notYet never holds and says what it saw.
func notYet(context.Context) (bool, error) { return false, errors.New("phase Pending") }

// exited starts a program that exits at once by itself and waits for that.
func exited(t *testing.T) *Process {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	p, err := StartProcess(ctx, ProcessOptions{Name: "driver", Path: "/bin/sh", Args: []string{"-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = p.Wait(waitCtx)
	return p
}

func wantMessage(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%q does not say %q", err, p)
		}
	}
}

// WaitFor says which limit ended the wait, its own or the caller's, and
// what the condition saw last.
func TestStackWaitForSaysWhichLimitEndedIt(t *testing.T) {
	s := &Stack{}
	err := s.WaitFor(context.Background(), 0, "the claim", notYet)
	wantMessage(t, err, "gave up waiting for the claim after 0s", "(last: phase Pending)")

	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("the test ended"))
	err = s.WaitFor(ctx, time.Hour, "the claim", notYet)
	wantMessage(t, err, "stopped waiting for the claim: the test ended", "(last: phase Pending)")

	if err := s.WaitFor(context.Background(), 0, "nothing", func(context.Context) (bool, error) { return true, nil }); err != nil {
		t.Errorf("a condition that holds at once: %v", err)
	}
}

// A component that died is reported instead of the timeout: it is checked
// before the wait can end.
func TestStackWaitForReportsADeadComponentFirst(t *testing.T) {
	s := &Stack{driver: exited(t)}
	err := s.WaitFor(context.Background(), 0, "the claim", notYet)
	wantMessage(t, err, "while waiting for the claim: driver", "exited unexpectedly (exit status 3)")
}

func TestWaitUntilSaysWhyItStopped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	err := waitUntil(ctx, "etcd", nil, notYet)
	wantMessage(t, err, "timed out waiting for etcd (last error: phase Pending): context deadline exceeded")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v does not wrap the deadline", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	err = waitUntil(ctx, "etcd", nil, func(context.Context) (bool, error) { return false, nil })
	wantMessage(t, err, "canceled while waiting for etcd: context canceled")

	// Bounded, so that a wait that missed the exit fails rather than hangs.
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = waitUntil(ctx, "etcd to report healthy", exited(t), notYet)
	wantMessage(t, err, "driver exited (exit status 3) before etcd to report healthy")
}
