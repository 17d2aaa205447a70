package library

import (
	"container/list"
	"hash/fnv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// waitNotes remember the failures of Provision and Delete that are waits
// (NoteWait), by object, event reason and message, from the moment the
// provisioner returns one until the library's event of it reaches
// libraryEvents. That event leaves through client-go's recorder, a queue
// of at most 1,000 events sent at the events client's rate: a note is kept
// far longer than an event waits there (noteKept), and a flood of waits
// keeps the most recent notesKept notes, far more than the queue holds.
//
// Expiry and the cap bound the memory, nothing more: the same object
// failing with the same message failed for the same reason (the message
// holds the driver's code), so a note never makes a failure that needs a
// person Normal. An event whose note is gone stays a Warning, as upstream
// sends it.
type waitNotes struct {
	clock clock.PassiveClock
	keep  time.Duration
	limit int

	mu sync.Mutex
	// byAge holds the notes oldest first; noted indexes them.
	byAge *list.List
	noted map[waitNote]*list.Element
}

// waitNote is what a note is found by. The message is hashed, so that a
// note costs the same whatever the length of the driver's message.
type waitNote struct {
	uid     types.UID
	reason  string
	message uint64
}

type agedNote struct {
	key waitNote
	at  time.Time
}

const (
	noteKept  = 10 * time.Minute
	notesKept = 10000
)

func newWaitNotes(c clock.PassiveClock, keep time.Duration, limit int) *waitNotes {
	return &waitNotes{clock: c, keep: keep, limit: limit, byAge: list.New(), noted: map[waitNote]*list.Element{}}
}

func newWaitNote(uid types.UID, reason, message string) waitNote {
	h := fnv.New64a()
	_, _ = h.Write([]byte(message))
	return waitNote{uid: uid, reason: reason, message: h.Sum64()}
}

// note records that the failure of object uid with this event reason and
// message is a wait, and forgets the notes that expired or, past the cap,
// the oldest.
func (n *waitNotes) note(uid types.UID, reason, message string) {
	key, now := newWaitNote(uid, reason, message), n.clock.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	if e, ok := n.noted[key]; ok {
		e.Value.(*agedNote).at = now
		n.byAge.MoveToBack(e)
	} else {
		n.noted[key] = n.byAge.PushBack(&agedNote{key: key, at: now})
	}
	for e := n.byAge.Front(); e != nil && (n.byAge.Len() > n.limit || n.expired(e, now)); e = n.byAge.Front() {
		n.byAge.Remove(e)
		delete(n.noted, e.Value.(*agedNote).key)
	}
}

// isNoted tells whether that failure was noted as a wait within the time a
// note is kept.
func (n *waitNotes) isNoted(uid types.UID, reason, message string) bool {
	key, now := newWaitNote(uid, reason, message), n.clock.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	e, ok := n.noted[key]
	return ok && !n.expired(e, now)
}

func (n *waitNotes) expired(e *list.Element, now time.Time) bool {
	return now.Sub(e.Value.(*agedNote).at) > n.keep
}

// count is the number of notes held, expired ones not yet forgotten
// included.
func (n *waitNotes) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.byAge.Len()
}
