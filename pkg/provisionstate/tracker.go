package provisionstate

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// CallState is what this process knows about CreateVolume for one claim.
type CallState int

const (
	// Unknown: no record in this process (for instance after a restart).
	// A call made by an earlier process may still be running in the
	// driver.
	Unknown CallState = iota
	// Calling: this process is inside CreateVolume (or undoing it) for
	// the claim.
	Calling
	// Created: CreateVolume succeeded and the PV is being saved.
	Created
	// Final: the last CreateVolume ended with a final error, so the driver
	// created nothing and nothing is running.
	Final
)

func (s CallState) String() string {
	switch s {
	case Calling:
		return "Calling"
	case Created:
		return "Created"
	case Final:
		return "Final"
	}
	return "Unknown"
}

// Tracker records, per claim UID, what this process knows about its
// CreateVolume calls, and serialises them: the provisioner and the claim
// protection controller never call the driver for the same claim at once.
type Tracker struct {
	mu          sync.Mutex
	states      map[types.UID]CallState
	subscribers []func(uid types.UID)
	// beginSubscribers are told of calls that start: a claim's reported
	// state (pkg/claimconditions) changes then, its protection does not.
	beginSubscribers []func(uid types.UID)
}

// NewTracker returns a tracker that knows of no call.
func NewTracker() *Tracker {
	return &Tracker{states: map[types.UID]CallState{}}
}

// Begin marks a call for uid as started and returns what was known before.
// It returns false, and changes nothing, if another call for the same claim
// is running in this process.
func (t *Tracker) Begin(uid types.UID) (CallState, bool) {
	t.mu.Lock()
	previous := t.states[uid]
	if previous == Calling {
		t.mu.Unlock()
		return previous, false
	}
	t.states[uid] = Calling
	subscribers := t.beginSubscribers
	t.mu.Unlock()
	for _, notify := range subscribers {
		notify(uid)
	}
	return previous, true
}

// End records how a call for uid ended and tells the subscribers.
func (t *Tracker) End(uid types.UID, state CallState) {
	t.mu.Lock()
	if state == Unknown {
		delete(t.states, uid)
	} else {
		t.states[uid] = state
	}
	subscribers := t.subscribers
	t.mu.Unlock()
	for _, notify := range subscribers {
		notify(uid)
	}
}

// State is what is known of uid's calls.
func (t *Tracker) State(uid types.UID) CallState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.states[uid]
}

// Forget drops the record of a claim that is gone, unless a call for it is
// running.
func (t *Tracker) Forget(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.states[uid] != Calling {
		delete(t.states, uid)
	}
}

// Subscribe has fn called, outside the tracker's lock, after every End.
func (t *Tracker) Subscribe(fn func(uid types.UID)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.subscribers = append(t.subscribers, fn)
}

// SubscribeBegin has fn called, outside the tracker's lock, after every
// Begin that starts a call. Subscribe of End alone leaves these out: claim
// protection has nothing to do when a call starts.
func (t *Tracker) SubscribeBegin(fn func(uid types.UID)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.beginSubscribers = append(t.beginSubscribers, fn)
}
