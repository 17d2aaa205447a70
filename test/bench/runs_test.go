package bench

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// The runs of the configurations interleave, numbered per configuration
// and in order over the series, their results in that order; an error
// ends the series, named. The part's duration is set.
func TestInterleave(t *testing.T) {
	record := func(c string, r Run) (string, error) {
		return fmt.Sprintf("%s %d %d/%d", c, r.Number, r.Order, r.Total), nil
	}
	h := &Header{Started: time.Now().Add(-time.Minute)}
	got, err := Interleave(context.Background(), h, 2, []string{"A", "B"}, func(c string) string { return c }, record)
	if err != nil {
		t.Fatal(err)
	}
	if h.Duration < time.Minute {
		t.Errorf("the part took %s, want the time since it started", h.Duration)
	}
	if want := []string{"A 1 1/4", "B 1 2/4", "A 2 3/4", "B 2 4/4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}

	boom := errors.New("boom")
	_, err = Interleave(context.Background(), &Header{}, 2, []string{"A", "B"}, func(c string) string { return "config " + c }, func(c string, r Run) (int, error) {
		if c == "B" {
			return 0, boom
		}
		return 1, nil
	})
	if !errors.Is(err, boom) || err.Error() != "config B, run 1: boom" {
		t.Errorf("error %v, want config B's first run's", err)
	}
}

// The series stops once its context ends, with the context's cause.
func TestInterleaveStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stopped := errors.New("stopped")
	runs := 0
	_, err := Interleave(ctx, &Header{}, 3, []string{"A", "B"}, func(c string) string { return c }, func(string, Run) (int, error) {
		runs++
		cancel(stopped)
		return runs, nil
	})
	if !errors.Is(err, stopped) || runs != 1 {
		t.Errorf("after %d runs: %v, want the cause after 1 run", runs, err)
	}
}
