package adaptive

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	testingclock "k8s.io/utils/clock/testing"
)

var (
	throttled = status.Error(codes.ResourceExhausted, "rate limit exceeded")
	final     = status.Error(codes.InvalidArgument, "bad parameter")
)

// newLimiter is a limiter on a fake clock, which acquire moves on while a
// call waits for its turn in the pace.
func newLimiter(max int) (*Limiter, *testingclock.FakeClock) {
	c := testingclock.NewFakeClock(time.Unix(1e9, 0))
	return NewLimiter(Options{Max: max, Clock: c}), c
}

// acquire admits a call, moving the limiter's fake clock on (a second at a
// time) while the call waits for the pace.
func acquire(t *testing.T, l *Limiter) Ticket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	type result struct {
		tk  Ticket
		err error
	}
	done := make(chan result, 1)
	go func() {
		tk, err := l.Acquire(ctx)
		done <- result{tk, err}
	}()
	fc, _ := l.clock.(*testingclock.FakeClock)
	for {
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("Acquire: %v", r.err)
			}
			return r.tk
		case <-time.After(time.Millisecond):
			if fc != nil && fc.HasWaiters() {
				fc.Step(time.Second)
			}
		}
	}
}

// admits tells whether a call may go now.
func admits(l *Limiter) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tk, err := l.Acquire(ctx)
	if err != nil {
		return false
	}
	tk.Release(final) // leaves the bound as it is
	return true
}

func TestTheBoundStartsAtTheWorkersAndHoldsCallsPastIt(t *testing.T) {
	l := NewLimiter(Options{Max: 3})
	tickets := []Ticket{acquire(t, l), acquire(t, l), acquire(t, l)}
	if admits(l) {
		t.Fatal("a fourth call went past a bound of 3")
	}
	done := make(chan Ticket)
	go func() {
		tk, _ := l.Acquire(context.Background())
		done <- tk
	}()
	tickets[0].Release(nil)
	select {
	case tk := <-done:
		tk.Release(nil)
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting call did not go when another ended")
	}
}

// Calls refused together answer one overload: the bound halves once.
func TestThrottledCallsOfOneRoundHalveTheBoundOnce(t *testing.T) {
	l, _ := newLimiter(8)
	var tickets []Ticket
	for range 4 {
		tickets = append(tickets, acquire(t, l))
	}
	for _, tk := range tickets {
		tk.Release(throttled)
	}
	if got := l.Limit(); got != 4 {
		t.Fatalf("bound %d after one round of refusals, want 4", got)
	}
	acquire(t, l).Release(status.Error(codes.Unavailable, "busy"))
	if got := l.Limit(); got != 2 {
		t.Fatalf("bound %d after a refusal of the next round, want 2", got)
	}
	for range 5 {
		acquire(t, l).Release(throttled)
	}
	if got := l.Limit(); got != 1 {
		t.Fatalf("bound %d, never below 1", got)
	}
}

func TestSuccessesGrowTheBoundBackToTheWorkers(t *testing.T) {
	l, _ := newLimiter(4)
	acquire(t, l).Release(throttled)
	acquire(t, l).Release(throttled)
	if got := l.Limit(); got != 1 {
		t.Fatalf("bound %d, want 1", got)
	}
	// One per round of successes: 1 success to reach 2, 2 more to 3, ...
	acquire(t, l).Release(nil)
	if got := l.Limit(); got != 2 {
		t.Fatalf("bound %d after one success at 1, want 2", got)
	}
	for range 50 {
		acquire(t, l).Release(nil)
	}
	if got := l.Limit(); got != 4 {
		t.Fatalf("bound %d, never above the 4 workers", got)
	}
}

func TestOtherErrorsLeaveTheBound(t *testing.T) {
	l, _ := newLimiter(4)
	acquire(t, l).Release(throttled)
	acquire(t, l).Release(final)
	acquire(t, l).Release(errors.New("not a status"))
	if got := l.Limit(); got != 2 {
		t.Fatalf("bound %d, want 2: only refusals for load and successes move it", got)
	}
}

func TestAWaitingCallEndsWithItsContext(t *testing.T) {
	l := NewLimiter(Options{Max: 1})
	held := acquire(t, l)
	defer held.Release(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire = %v, want the context's end", err)
	}
}

func TestTheObserverSeesTheBoundTheCallsInFlightAndThePace(t *testing.T) {
	var seen State
	l := NewLimiter(Options{Max: 4, Observe: func(s State) { seen = s }, Clock: testingclock.NewFakeClock(time.Unix(1e9, 0))})
	tk := acquire(t, l)
	if want := (State{Limit: 4, InFlight: 1}); seen != want {
		t.Fatalf("observed %+v, want %+v", seen, want)
	}
	tk.Release(throttled)
	if want := (State{Limit: 2, Pace: minPace}); seen != want {
		t.Fatalf("observed %+v, want %+v", seen, want)
	}
}
