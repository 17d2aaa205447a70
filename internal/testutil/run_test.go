package testutil

import (
	"context"
	"errors"
	"testing"
)

// stop cancels the run and waits for it, once: the cleanup's stop does
// nothing after the test's.
func TestStartStopsItsRunOnce(t *testing.T) {
	stops := 0
	var stop func()
	t.Run("test", func(t *testing.T) {
		stop = Start(t, context.Background(), func(ctx context.Context) error {
			<-ctx.Done()
			stops++
			return nil
		})
		stop()
		if stops != 1 {
			t.Errorf("run returned %d times after stop, want 1", stops)
		}
	})
	stop()
	if stops != 1 {
		t.Errorf("run returned %d times, want 1", stops)
	}
}

func TestStartReportsTheRunsError(t *testing.T) {
	f := &fatals{TB: t}
	stop := Start(f, context.Background(), func(context.Context) error { return errors.New("broken") })
	stop()
	if len(f.msgs) != 1 || f.msgs[0] != "Run: broken" {
		t.Errorf("errors %q", f.msgs)
	}
}
