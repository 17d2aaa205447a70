// Package poll is the one polling loop of the tests and the e2e framework,
// on apimachinery's wait package. It has no testing dependency, so that the
// e2e framework's binaries (the demo, localup) can use it too.
package poll

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Cond is asked whether what a wait is for has happened. An error only
// means "not yet", and should say what was seen instead.
type Cond func(ctx context.Context) (bool, error)

// Until calls cond at once and then every interval until it returns true
// or ctx ends. It returns nil once cond holds, and an *Expired once ctx has
// ended. check, if not nil, runs after every round in which cond did not
// hold: its error ends the wait at once and is returned as is, for a
// failure no waiting would mend (a process that died).
func Until(ctx context.Context, interval time.Duration, cond Cond, check func() error) error {
	var last, failed error
	err := wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if ok {
			return true, nil
		}
		if err != nil {
			last = err
		}
		if check != nil {
			failed = check()
		}
		return false, failed
	})
	switch {
	case err == nil:
		return nil
	case failed != nil:
		return failed
	}
	return &Expired{Cause: context.Cause(ctx), Last: last}
}

// Expired is the error of a wait whose context ended before its condition
// held.
type Expired struct {
	// Cause is the context's cause: a deadline, a cancellation or what
	// the canceller gave.
	Cause error
	// Last is the last error the condition returned, nil if none.
	Last error
}

func (e *Expired) Error() string {
	if e.Last == nil {
		return e.Cause.Error()
	}
	return fmt.Sprintf("%v (last error: %v)", e.Cause, e.Last)
}

// Unwrap lets errors.Is see the context's error, e.g.
// context.DeadlineExceeded.
func (e *Expired) Unwrap() error { return e.Cause }
