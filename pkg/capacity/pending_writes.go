package capacity

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// pendingWrite is the driver's newest answer for an object whose published
// capacity differs from it: what a writer is to write.
type pendingWrite struct {
	key Key
	// object and uid name the object the answer was compared with: a
	// writer finding another in the cache leaves the decision to a sync.
	object   cache.ObjectName
	uid      types.UID
	capacity *resource.Quantity
	maxSize  *resource.Quantity
	priority writePriority
	// seq orders equal priorities, oldest first; a newer answer of the
	// key keeps it, since the object has waited since then.
	seq uint64
	// index is the position in the ready heap, -1 while held.
	index int
}

// sameAnswer tells whether w and o would write the same values.
func (w *pendingWrite) sameAnswer(o *pendingWrite) bool {
	return w.uid == o.uid && sameQuantity(w.capacity, o.capacity) && sameQuantity(w.maxSize, o.maxSize)
}

// pendingWrites is the set of writes decided by syncs and not yet made,
// one per key. A sync records or drops a key's write without waiting for
// the API; writers take the ready ones, highest priority first. A key's
// write is ready, or held: backing off after a failed attempt, or waiting
// for a write of the same key in flight to end (two writes of one object
// at once would only conflict).
//
// It is a cache of decisions, not a record: lost on a restart, every one
// is made again by the first pass over the objects.
type pendingWrites struct {
	// retry paces the attempts of a key whose write failed.
	retry workqueue.TypedRateLimiter[Key]

	mu sync.Mutex
	// cond is signalled when an entry becomes ready, and broadcast when a
	// Run's context ends.
	cond  *sync.Cond
	ready writeHeap
	// byKey holds every write not taken by a writer, ready or held.
	byKey map[Key]*pendingWrite
	// writing holds the writes in the writers' hands.
	writing   map[Key]*pendingWrite
	seq       uint64
	coalesced uint64
}

func newPendingWrites(retry workqueue.TypedRateLimiter[Key]) *pendingWrites {
	p := &pendingWrites{
		retry:   retry,
		byKey:   map[Key]*pendingWrite{},
		writing: map[Key]*pendingWrite{},
	}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// record makes w the key's pending write. An older one not yet taken is
// replaced (coalesced into one write) and keeps its place in time; an
// answer equal to the write in flight adds nothing, since that write
// either lands or is retried.
func (p *pendingWrites) record(w *pendingWrite) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inFlight := p.writing[w.key]
	if old, ok := p.byKey[w.key]; ok {
		if !old.sameAnswer(w) {
			p.coalesced++
		}
		if inFlight != nil && inFlight.sameAnswer(w) {
			// Held behind the write in flight (index -1), which
			// writes this very answer.
			delete(p.byKey, w.key)
			return
		}
		old.object, old.uid, old.capacity, old.maxSize, old.priority = w.object, w.uid, w.capacity, w.maxSize, w.priority
		if old.index >= 0 {
			heap.Fix(&p.ready, old.index)
		}
		return
	}
	if inFlight != nil && inFlight.sameAnswer(w) {
		return
	}
	p.seq++
	w.seq = p.seq
	w.index = -1
	p.byKey[w.key] = w
	if inFlight == nil {
		p.push(w)
	}
}

// drop forgets the key's pending write: the published object is what the
// driver says again, or is gone. A write in flight goes on; the update
// event it causes brings the key to a sync that decides again.
func (p *pendingWrites) drop(key Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.byKey[key]
	if !ok {
		return
	}
	if w.index >= 0 {
		heap.Remove(&p.ready, w.index)
	}
	delete(p.byKey, key)
	p.retry.Forget(key)
}

// next waits for the ready write of highest priority and hands it to the
// caller, who must call done with it; false once ctx has ended.
func (p *pendingWrites) next(ctx context.Context) (*pendingWrite, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.ready.Len() == 0 && ctx.Err() == nil {
		p.cond.Wait()
	}
	if ctx.Err() != nil {
		return nil, false
	}
	w := heap.Pop(&p.ready).(*pendingWrite)
	delete(p.byKey, w.key)
	p.writing[w.key] = w
	return w, true
}

// done ends the attempt at w. A failed one is held for its back-off, as
// the newest answer recorded meanwhile if there is one; otherwise a
// newer answer held behind it becomes ready.
func (p *pendingWrites) done(w *pendingWrite, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.writing, w.key)
	held := p.byKey[w.key]
	if !failed {
		p.retry.Forget(w.key)
		if held != nil {
			p.push(held)
		}
		return
	}
	if held == nil {
		held = w
		held.index = -1
		p.byKey[w.key] = held
	}
	time.AfterFunc(p.retry.When(w.key), func() { p.release(held) })
}

// release makes w ready at the end of its back-off, unless it was dropped
// or replaced meanwhile.
func (p *pendingWrites) release(w *pendingWrite) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byKey[w.key] == w && w.index < 0 && p.writing[w.key] == nil {
		p.push(w)
	}
}

func (p *pendingWrites) push(w *pendingWrite) {
	heap.Push(&p.ready, w)
	p.cond.Signal()
}

// wakeAll lets the writers waiting in next see that their context ended.
func (p *pendingWrites) wakeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cond.Broadcast()
}

// counts are the keys with a write not yet made (held, ready or in
// flight) and the writes coalesced so far.
func (p *pendingWrites) counts() (pending int, coalesced uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pending = len(p.byKey)
	for key := range p.writing {
		if _, ok := p.byKey[key]; !ok {
			pending++
		}
	}
	return pending, p.coalesced
}

// writeHeap orders the ready writes, highest priority first
// (container/heap).
type writeHeap []*pendingWrite

func (h writeHeap) Len() int { return len(h) }

func (h writeHeap) Less(i, j int) bool {
	if h[i].priority != h[j].priority {
		return h[i].priority.before(h[j].priority)
	}
	return h[i].seq < h[j].seq
}

func (h writeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *writeHeap) Push(x any) {
	w := x.(*pendingWrite)
	w.index = len(*h)
	*h = append(*h, w)
}

func (h *writeHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	w.index = -1
	*h = old[:len(old)-1]
	return w
}
