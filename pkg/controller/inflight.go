package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// callState is what this process knows about CreateVolume for one claim.
type callState int

const (
	// stateUnknown: no record in this process (for instance after a
	// restart). A call made by an earlier process may still be running in
	// the driver.
	stateUnknown callState = iota
	// stateCalling: this process is inside CreateVolume (or undoing it) for
	// the claim.
	stateCalling
	// stateCreated: CreateVolume succeeded and the lib is saving the PV.
	stateCreated
	// stateFinal: the last CreateVolume ended with a final error, so the
	// driver created nothing and nothing is running.
	stateFinal
)

// inFlight records, per claim UID, what this process knows about its
// CreateVolume calls, and serialises them: the provisioner and the
// protection controller never call the driver for the same claim at once.
type inFlight struct {
	mu       sync.Mutex
	states   map[types.UID]callState
	onChange func(uid types.UID)
}

func newInFlight() *inFlight {
	return &inFlight{states: map[types.UID]callState{}}
}

// begin marks a call for uid as started and returns what was known before.
// It fails if another call for the same claim is running in this process.
func (f *inFlight) begin(uid types.UID) (callState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	previous := f.states[uid]
	if previous == stateCalling {
		return previous, false
	}
	f.states[uid] = stateCalling
	return previous, true
}

// end records how a call for uid ended and tells the listener.
func (f *inFlight) end(uid types.UID, state callState) {
	f.mu.Lock()
	if state == stateUnknown {
		delete(f.states, uid)
	} else {
		f.states[uid] = state
	}
	notify := f.onChange
	f.mu.Unlock()
	if notify != nil {
		notify(uid)
	}
}

func (f *inFlight) state(uid types.UID) callState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.states[uid]
}

// forget drops the record of a claim that is gone.
func (f *inFlight) forget(uid types.UID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.states[uid] != stateCalling {
		delete(f.states, uid)
	}
}

func (f *inFlight) setListener(fn func(uid types.UID)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onChange = fn
}
