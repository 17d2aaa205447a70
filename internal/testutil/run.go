package testutil

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Start runs run (a controller's Run) on a goroutine of its own. stop
// cancels its context and waits for it to return, failing the test if it
// does not within 10 seconds or returns an error; the test's cleanup calls
// stop too, and calls after the first do nothing.
func Start(t testing.TB, ctx context.Context, run func(ctx context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not return after its context ended")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// RunUntilCleanup runs run (a controller's Run) on a goroutine of its own
// until the test ends: the test's cleanup cancels its context and fails the
// test if run has not returned within 10 seconds.
func RunUntilCleanup(t testing.TB, ctx context.Context, run func(ctx context.Context)) {
	t.Helper()
	Start(t, ctx, func(ctx context.Context) error { run(ctx); return nil })
}
