package adaptive

import (
	"context"
	"sync"
)

// Limiter is an AIMD bound on calls in flight. Safe for concurrent use.
type Limiter struct {
	max float64

	mu       sync.Mutex
	limit    float64
	inFlight int
	// epoch counts decreases: a call that started before the last one was
	// part of the overload it answered, and does not halve the bound again.
	epoch uint64
	// changed is closed, and replaced, whenever a waiting call may go.
	changed chan struct{}
	// observe, if set, is told the bound and the calls in flight.
	observe func(limit float64, inFlight int)
}

// NewLimiter returns a limiter whose bound starts at, and never exceeds,
// max (at least 1). observe may be nil.
func NewLimiter(max int, observe func(limit float64, inFlight int)) *Limiter {
	m := float64(max)
	if m < 1 {
		m = 1
	}
	l := &Limiter{max: m, limit: m, changed: make(chan struct{}), observe: observe}
	l.notifyLocked()
	return l
}

// Ticket is one admitted call.
type Ticket struct {
	l     *Limiter
	epoch uint64
}

// Acquire waits until a call may go, or ctx ends.
func (l *Limiter) Acquire(ctx context.Context) (Ticket, error) {
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
// 1/bound (one per round of calls); the first refusal for load of a round
// (see Throttled) halves it; any other error leaves it.
func (t Ticket) Release(err error) {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	switch {
	case Throttled(err):
		if t.epoch == l.epoch {
			l.limit = max(1, l.limit/2)
			l.epoch++
		}
	case err == nil:
		l.limit = min(l.max, l.limit+1/l.limit)
	}
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

func (l *Limiter) notifyLocked() {
	if l.observe != nil {
		l.observe(l.limit, l.inFlight)
	}
}
