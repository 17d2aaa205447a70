package adaptive

import (
	"context"
	"sync"

	"k8s.io/utils/clock"
)

// Options configure a Limiter.
type Options struct {
	// Max is where the bound starts and what it never exceeds, at least 1:
	// the workers that could call.
	Max int
	// Observe, if set, is told the state whenever it changes.
	Observe func(State)
	// Clock is the real one when nil.
	Clock clock.Clock
}

// State is what a Limiter allows at one moment.
type State struct {
	// Limit is the bound on calls in flight.
	Limit float64
	// InFlight are the calls admitted and not yet released.
	InFlight int
	// Pace is the calls a second that starts are spaced to; 0 while they
	// are not.
	Pace float64
}

// Limiter is an AIMD bound on calls in flight, with a pace of starts once
// the backend has refused for load (see pace). Safe for concurrent use.
type Limiter struct {
	max     float64
	clock   clock.Clock
	observe func(State)

	mu       sync.Mutex
	limit    float64
	inFlight int
	pace     *pace
	// epoch counts decreases: a call that started before the last one was
	// part of the overload it answered, and does not decrease again.
	epoch uint64
	// changed is closed, and replaced, whenever a waiting call may go.
	changed chan struct{}
}

// NewLimiter returns a limiter whose bound starts at opts.Max, unpaced.
func NewLimiter(opts Options) *Limiter {
	m := float64(max(opts.Max, 1))
	c := opts.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	l := &Limiter{max: m, clock: c, observe: opts.Observe, limit: m, pace: newPace(), changed: make(chan struct{})}
	l.notifyLocked()
	return l
}

// Ticket is one admitted call.
type Ticket struct {
	l     *Limiter
	epoch uint64
}

// Acquire waits until a call may go: a place under the bound, then its turn
// in the pace. It gives up when ctx ends.
func (l *Limiter) Acquire(ctx context.Context) (Ticket, error) {
	t, err := l.admit(ctx)
	if err != nil {
		return Ticket{}, err
	}
	r, delay := l.pace.reserve(l.clock.Now())
	if delay <= 0 {
		return t, nil
	}
	select {
	case <-l.clock.After(delay):
		return t, nil
	case <-ctx.Done():
		r.CancelAt(l.clock.Now())
		t.release(func() {})
		return Ticket{}, ctx.Err()
	}
}

// admit waits for a place under the bound.
func (l *Limiter) admit(ctx context.Context) (Ticket, error) {
	for {
		l.mu.Lock()
		if l.inFlight < int(l.limit) {
			l.inFlight++
			t := Ticket{l: l, epoch: l.epoch}
			l.notifyLocked()
			l.mu.Unlock()
			return t, nil
		}
		wait := l.changed
		l.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return Ticket{}, ctx.Err()
		}
	}
}

// Release ends a call with its error. A success grows the bound by
// 1/bound (one per round of calls) and raises the pace; the first refusal
// for load of a round (see Throttled) halves the bound and paces starts
// below what the backend took; any other error leaves both.
func (t Ticket) Release(err error) {
	l := t.l
	now := l.clock.Now()
	t.release(func() {
		switch {
		case Throttled(err):
			if t.epoch == l.epoch {
				l.limit = max(1, l.limit/2)
				l.pace.refused(now)
				l.epoch++
			}
		case err == nil:
			l.limit = min(l.max, l.limit+1/l.limit)
			l.pace.succeeded(now)
		}
	})
}

// release frees the ticket's place after adjust, under the mutex, and
// wakes the waiting calls.
func (t Ticket) release(adjust func()) {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	adjust()
	l.notifyLocked()
	close(l.changed)
	l.changed = make(chan struct{})
}

// Limit is the current bound, rounded down as calls see it.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.limit)
}

// Pace is the calls a second that starts are spaced to, 0 while they are
// not.
func (l *Limiter) Pace() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pace.perSecond()
}

func (l *Limiter) notifyLocked() {
	if l.observe != nil {
		l.observe(State{Limit: l.limit, InFlight: l.inFlight, Pace: l.pace.perSecond()})
	}
}
