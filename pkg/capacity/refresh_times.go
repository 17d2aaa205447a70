package capacity

import (
	"sync"
	"time"
)

// refreshTimes remembers, per key, when its object was last brought up to
// date with the driver's GetCapacity answer (created, updated, or found
// current), or, until then, when the key was first queued: what the
// oldest-refresh age metric reads. Keys of objects deleted as obsolete are
// forgotten.
type refreshTimes struct {
	mu    sync.Mutex
	byKey map[Key]time.Time
	now   func() time.Time
}

func (r *refreshTimes) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// queued notes that key waits for a sync, if it has no time yet.
func (r *refreshTimes) queued(key Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byKey[key]; !ok {
		r.byKey[key] = r.clock()
	}
}

// refreshed notes that key's object is up to date now.
func (r *refreshTimes) refreshed(key Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byKey[key] = r.clock()
}

func (r *refreshTimes) forget(key Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byKey, key)
}

// oldestAge is the time since the least recent refresh of the keys; a key
// never queued counts as refreshed now.
func (r *refreshTimes) oldestAge(keys map[Key]bool) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock()
	oldest := time.Duration(0)
	for key := range keys {
		if at, ok := r.byKey[key]; ok {
			oldest = max(oldest, now.Sub(at))
		}
	}
	return oldest
}

// enqueue queues the object of key for a sync.
func (c *Controller) enqueue(key Key) {
	c.refreshes.queued(key)
	c.loop.Add(key)
}
