package claimconditions

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// settling remembers, per claim, the state a claim should carry and since
// when it has, until it is written: a state is written only once it has
// lasted a while, so that a claim that passes through states quickly (a
// CreateVolume of a second, the moment between a call's end and its
// outcome's record) costs no write. Memory only; at most one entry per
// claim whose condition differs from its desired state.
type settling struct {
	clock clock.PassiveClock

	mu      sync.Mutex
	pending map[types.UID]pendingState
}

type pendingState struct {
	want  State
	since time.Time
}

func newSettling(c clock.PassiveClock) *settling {
	return &settling{clock: c, pending: map[types.UID]pendingState{}}
}

// wait is how much longer want must last before it is written for the
// claim uid: 0 once it has been the desired state for delay. A new want
// starts the wait again.
func (s *settling) wait(uid types.UID, want State, delay time.Duration) time.Duration {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pending[uid]
	if !ok || p.want != want {
		p = pendingState{want: want, since: now}
		s.pending[uid] = p
	}
	return max(0, p.since.Add(delay).Sub(now))
}

// forget drops what is remembered of a claim: it was written, the claim
// carries what it should, or it is gone.
func (s *settling) forget(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, uid)
}

// len is the number of claims waiting for a write.
func (s *settling) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}
