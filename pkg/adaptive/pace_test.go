package adaptive

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/util/wait"
)

// succeedEvery lets n calls succeed, one every gap of the fake clock.
func succeedEvery(t *testing.T, l *Limiter, c interface{ Step(time.Duration) }, n int, gap time.Duration) {
	t.Helper()
	for range n {
		acquire(t, l).Release(nil)
		c.Step(gap)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Quick calls go past a quota of calls a second one at a time too: a
// refusal paces the starts a little below what the backend took.
func TestARefusalPacesStartsBelowWhatTheBackendTookInTheLastSecond(t *testing.T) {
	l, c := newLimiter(100)
	if got := l.Pace(); got != 0 {
		t.Fatalf("pace %v before any refusal, want none", got)
	}
	succeedEvery(t, l, c, 10, 90*time.Millisecond)
	acquire(t, l).Release(throttled)
	if got := l.Pace(); !near(got, 10*paceDecrease) {
		t.Fatalf("pace %v after 10 successes in the last second, want %v", got, 10*paceDecrease)
	}

	acquire(t, l).Release(final) // the pace's one call at once
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan error, 1)
	go func() {
		tk, err := l.Acquire(ctx)
		if err == nil {
			tk.Release(final)
		}
		waiting <- err
	}()
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return c.HasWaiters(), nil
	}); err != nil {
		t.Fatalf("the next call never waited for its turn: %v", err)
	}
	c.Step(time.Second / 8)
	if err := <-waiting; err != nil {
		t.Fatalf("the next call did not go after 1/8 s at 8 calls a second: %v", err)
	}
	cancel()
}

func TestSuccessesRaiseThePace(t *testing.T) {
	l, c := newLimiter(100)
	succeedEvery(t, l, c, 10, 90*time.Millisecond)
	acquire(t, l).Release(throttled)
	before := l.Pace()
	succeedEvery(t, l, c, 20, 0)
	if got, want := l.Pace(), before+20*paceIncrease; !near(got, want) {
		t.Fatalf("pace %v after 20 successes from %v, want %v", got, before, want)
	}
}

func TestTheFastestPaceEndsThePacing(t *testing.T) {
	p := newPace()
	p.limiter.SetLimit(rate.Limit(maxPace - paceIncrease/2))
	p.succeeded(time.Unix(1e9, 0))
	if got := p.perSecond(); got != 0 {
		t.Fatalf("pace %v past %v calls a second, want none", got, maxPace)
	}
}

// A backend that refuses everything is still tried, to see it recover.
func TestABackendThatTookNothingIsStillTriedEveryFiveSeconds(t *testing.T) {
	l, _ := newLimiter(4)
	acquire(t, l).Release(throttled)
	if got := l.Pace(); got != minPace {
		t.Fatalf("pace %v after a refusal with no success, want %v", got, minPace)
	}
}

// Refusals of calls that started before the last decrease answer the same
// overload: they do not lower the pace again.
func TestRefusalsOfOneRoundLowerThePaceOnce(t *testing.T) {
	l, c := newLimiter(8)
	succeedEvery(t, l, c, 10, 90*time.Millisecond)
	first, second := acquire(t, l), acquire(t, l)
	first.Release(throttled)
	paced := l.Pace()
	second.Release(throttled)
	if got := l.Pace(); got != paced {
		t.Fatalf("pace %v after a second refusal of the same round, want %v", got, paced)
	}
}

// A call that gives up while waiting for its turn gives its place back.
func TestACallThatEndsWaitingForThePaceGivesItsPlaceBack(t *testing.T) {
	l, _ := newLimiter(1)
	acquire(t, l).Release(throttled) // paced at one call in five seconds
	acquire(t, l).Release(final)     // takes the one call at once
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want the context's end while waiting for the pace", err)
	}
	l.mu.Lock()
	inFlight := l.inFlight
	l.mu.Unlock()
	if inFlight != 0 {
		t.Fatalf("%d calls in flight after the only waiting call gave up, want 0", inFlight)
	}
}
