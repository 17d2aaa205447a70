package adaptive

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// The pace spaces call starts once the backend has refused for load. A
// bound on calls in flight alone does not slow a backend whose calls are
// quick: one call at a time still goes past a quota of calls a second. So a
// refusal also sets a pace, from what the backend took just before, and
// successes raise it again.
const (
	// paceDecrease is the new pace's share of the successes of the last
	// paceWindow: a little below what the quota let through.
	paceDecrease = 0.8
	// paceIncrease is added to the pace, in calls a second, by each
	// success: the pace grows by a twentieth of itself a second, so it
	// finds a quota again within seconds, whatever its size, and misses
	// it about once in that many calls.
	paceIncrease = 0.05
	// minPace holds a call every five seconds at least, so that a backend
	// that refuses everything is still tried and its recovery seen.
	minPace = 0.2
	// maxPace ends the pacing: a backend that takes this many calls a
	// second is no longer being held back by its quota.
	maxPace = 10000
	// paceWindow is how far back the successes are counted.
	paceWindow = time.Second
	// successesKept bounds the successes remembered; a backend faster than
	// this a paceWindow is paced from this many.
	successesKept = 1024
)

// pace is the spacing of call starts. The Limiter's mutex guards it but
// for limiter, which is safe for concurrent use.
type pace struct {
	limiter *rate.Limiter
	// successes is a ring of the times of the last successes.
	successes []time.Time
	next      int
}

func newPace() *pace {
	return &pace{limiter: rate.NewLimiter(rate.Inf, 1), successes: make([]time.Time, 0, successesKept)}
}

// perSecond is the pace, or 0 while calls are not spaced.
func (p *pace) perSecond() float64 {
	if l := p.limiter.Limit(); l != rate.Inf {
		return float64(l)
	}
	return 0
}

// succeeded counts a success at now and raises the pace.
func (p *pace) succeeded(now time.Time) {
	if len(p.successes) < successesKept {
		p.successes = append(p.successes, now)
	} else {
		p.successes[p.next] = now
		p.next = (p.next + 1) % successesKept
	}
	if cur := p.perSecond(); cur > 0 {
		next := rate.Limit(cur + paceIncrease)
		if next >= maxPace {
			next = rate.Inf
		}
		p.limiter.SetLimitAt(now, next)
	}
}

// refused sets the pace below what the backend took in the last
// paceWindow, or below the pace if that was less.
func (p *pace) refused(now time.Time) {
	took := 0
	for _, t := range p.successes {
		if now.Sub(t) < paceWindow {
			took++
		}
	}
	next := float64(took) / paceWindow.Seconds()
	if cur := p.perSecond(); cur > 0 {
		next = math.Min(next, cur)
	}
	p.limiter.SetLimitAt(now, rate.Limit(math.Max(minPace, next*paceDecrease)))
}

// reserve books the next start at or after now, and says how long to wait
// for it.
func (p *pace) reserve(now time.Time) (*rate.Reservation, time.Duration) {
	r := p.limiter.ReserveN(now, 1)
	return r, r.DelayFrom(now)
}
