package provisionstate

import (
	"sync"

	"k8s.io/client-go/tools/cache"
)

// Readers counts, per data source, the CreateVolume calls of this process
// that read it, so that the source's protection is never released under a
// running call, even one whose claim is already gone from the API (with
// provisioning protection off, a claim can be deleted mid-call).
type Readers struct {
	mu          sync.Mutex
	reading     map[cache.ObjectName]int
	subscribers []func(source cache.ObjectName)
}

// NewReaders returns a record of no reads.
func NewReaders() *Readers {
	return &Readers{reading: map[cache.ObjectName]int{}}
}

// Begin records a call that reads source.
func (r *Readers) Begin(source cache.ObjectName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reading[source]++
}

// End records that a call begun on source returned, and tells the
// subscribers once no call reads it.
func (r *Readers) End(source cache.ObjectName) {
	r.mu.Lock()
	r.reading[source]--
	done := r.reading[source] <= 0
	if done {
		delete(r.reading, source)
	}
	subscribers := r.subscribers
	r.mu.Unlock()
	if done {
		for _, notify := range subscribers {
			notify(source)
		}
	}
}

// Reading tells whether a call of this process reads source now.
func (r *Readers) Reading(source cache.ObjectName) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reading[source] > 0
}

// Subscribe registers fn to be told when the last call reading a source
// returns. Register before calls begin.
func (r *Readers) Subscribe(fn func(source cache.ObjectName)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subscribers = append(r.subscribers, fn)
}
