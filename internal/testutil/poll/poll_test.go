package poll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// bounded is a context that fails a broken wait rather than hang it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// An error from the condition only means "not yet": the wait goes on.
func TestUntilRetriesAfterAnError(t *testing.T) {
	calls := 0
	err := Until(bounded(t), time.Millisecond, func(context.Context) (bool, error) {
		calls++
		return calls == 3, fmt.Errorf("round %d", calls)
	}, nil)
	if err != nil || calls != 3 {
		t.Fatalf("got %v after %d calls, want nil after 3", err, calls)
	}
}

// An ended context is reported with its cause and the condition's last
// error, which says what the wait saw.
func TestUntilReportsTheCauseAndTheLastError(t *testing.T) {
	stop := errors.New("the test is over")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	calls := 0
	err := Until(ctx, time.Millisecond, func(context.Context) (bool, error) {
		calls++
		if calls == 2 {
			cancel(stop)
		}
		return false, fmt.Errorf("seen %d", calls)
	}, nil)
	var exp *Expired
	if !errors.As(err, &exp) || !errors.Is(err, stop) || exp.Last == nil || exp.Last.Error() != "seen 2" {
		t.Fatalf("got %#v, want an Expired by %v after seen 2", err, stop)
	}
	if msg := err.Error(); !strings.Contains(msg, "the test is over") || !strings.Contains(msg, "seen 2") {
		t.Errorf("message %q does not say why and what was seen", msg)
	}
}

// The condition is asked once even if the context has already ended, and
// a wait that saw no error says so by a nil Last.
func TestUntilAsksOnceOnAnEndedContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	calls := 0
	err := Until(ctx, time.Hour, func(context.Context) (bool, error) {
		calls++
		return false, nil
	}, nil)
	var exp *Expired
	if !errors.As(err, &exp) || !errors.Is(err, context.DeadlineExceeded) || exp.Last != nil || calls != 1 {
		t.Fatalf("got %#v after %d calls, want a deadline with no last error after 1", err, calls)
	}
}

// check runs after each round that did not succeed, and its error ends the
// wait at once, as is.
func TestUntilStopsWhenTheCheckFails(t *testing.T) {
	died := errors.New("the driver died")
	calls, checks := 0, 0
	err := Until(bounded(t), time.Millisecond, func(context.Context) (bool, error) {
		calls++
		return false, nil
	}, func() error {
		checks++
		if checks == 2 {
			return died
		}
		return nil
	})
	var exp *Expired
	if err != died || errors.As(err, &exp) || calls != 2 {
		t.Fatalf("got %v after %d calls, want %v after 2", err, calls, died)
	}
	checks = 0
	if err := Until(bounded(t), time.Millisecond, func(context.Context) (bool, error) { return true, nil }, func() error {
		checks++
		return died
	}); err != nil || checks != 0 {
		t.Errorf("a condition that held: got %v after %d checks, want nil after none", err, checks)
	}
}
