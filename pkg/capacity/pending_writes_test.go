package capacity

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func answer(node string, bytes int64, p writePriority) *pendingWrite {
	return &pendingWrite{key: lateKey(node), uid: typesUID("uid-" + node), capacity: qty(bytes), priority: p}
}

// takeAll takes every ready write, in the order writers would, and ends
// each.
func takeAll(t *testing.T, p *pendingWrites) []string {
	t.Helper()
	var out []string
	for ready(p) > 0 {
		w, ok := p.next(context.Background())
		if !ok {
			t.Fatal("next gave up with writes ready")
		}
		out = append(out, w.key.Segment)
		p.done(w, false)
	}
	return out
}

func ready(p *pendingWrites) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ready.Len()
}

func segments(nodes ...string) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = lateKey(n).Segment
	}
	return out
}

func TestPendingWritesOrder(t *testing.T) {
	p := newPendingWrites(testutil.InstantRetries[Key]())
	p.record(answer("small-old", 1, writePriority{change: 0.1}))
	p.record(answer("big-old", 1, writePriority{change: 0.5}))
	p.record(answer("big-new", 1, writePriority{change: 0.5}))
	p.record(answer("crossing-tiny", 1, writePriority{crossing: true, change: 0.01}))
	p.record(answer("crossing", 1, writePriority{crossing: true, change: 0.2}))
	// A newer answer takes the new priority and keeps its place in time.
	p.record(answer("small-old", 2, writePriority{change: 0.5}))
	got := takeAll(t, p)
	want := segments("crossing", "crossing-tiny", "small-old", "big-old", "big-new")
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestPendingWritesCoalesceAndDrop(t *testing.T) {
	p := newPendingWrites(testutil.InstantRetries[Key]())
	p.record(answer("n1", 8, writePriority{}))
	p.record(answer("n1", 8, writePriority{})) // the same answer again
	p.record(answer("n1", 7, writePriority{}))
	p.record(answer("n2", 5, writePriority{}))
	p.drop(lateKey("n2"))
	if pending, coalesced := p.counts(); pending != 1 || coalesced != 1 {
		t.Fatalf("%d pending, %d coalesced; want 1 and 1 (an equal answer replaces nothing)", pending, coalesced)
	}
	w, _ := p.next(context.Background())
	if w.capacity.Value() != 7 {
		t.Errorf("writing %v, want the newest answer 7", w.capacity)
	}
	p.done(w, false)
	if pending, _ := p.counts(); pending != 0 {
		t.Errorf("%d pending after the write, want 0", pending)
	}
}

// While a key's write is in flight, the same answer adds nothing and
// another waits for it to end.
func TestPendingWritesBehindAWriteInFlight(t *testing.T) {
	p := newPendingWrites(testutil.InstantRetries[Key]())
	p.record(answer("n1", 8, writePriority{}))
	w, _ := p.next(context.Background())
	p.record(answer("n1", 8, writePriority{}))
	if pending, _ := p.counts(); pending != 1 || ready(p) != 0 {
		t.Fatalf("%d pending, %d ready; want the write in flight alone", pending, ready(p))
	}
	p.record(answer("n1", 6, writePriority{}))
	if pending, _ := p.counts(); pending != 1 || ready(p) != 0 {
		t.Fatalf("%d pending, %d ready; want one key, its newer answer held", pending, ready(p))
	}
	p.done(w, false)
	next, _ := p.next(context.Background())
	if next.capacity.Value() != 6 {
		t.Errorf("then writing %v, want 6", next.capacity)
	}
}

// A failed write is held for its back-off, taking newer answers
// meanwhile, then ready again.
func TestPendingWritesBackOffAfterAFailure(t *testing.T) {
	slow := newPendingWrites(workqueue.NewTypedItemExponentialFailureRateLimiter[Key](time.Hour, time.Hour))
	slow.record(answer("n1", 8, writePriority{}))
	w, _ := slow.next(context.Background())
	slow.done(w, true)
	slow.record(answer("n1", 7, writePriority{}))
	if pending, coalesced := slow.counts(); pending != 1 || coalesced != 1 || ready(slow) != 0 {
		t.Errorf("%d pending, %d coalesced, %d ready during the back-off; want 1, 1, 0", pending, coalesced, ready(slow))
	}

	quick := newPendingWrites(workqueue.NewTypedItemExponentialFailureRateLimiter[Key](time.Millisecond, time.Millisecond))
	quick.record(answer("n1", 8, writePriority{}))
	w, _ = quick.next(context.Background())
	quick.done(w, true)
	testutil.Eventually(t, 10*time.Second, "the write ready after its back-off", func() bool { return ready(quick) == 1 })
}

func TestPendingWritesNextEndsWithItsContext(t *testing.T) {
	p := newPendingWrites(testutil.InstantRetries[Key]())
	ctx, cancel := context.WithCancel(context.Background())
	context.AfterFunc(ctx, p.wakeAll)
	done := make(chan bool)
	go func() {
		_, ok := p.next(ctx)
		done <- ok
	}()
	cancel()
	select {
	case ok := <-done:
		if ok {
			t.Error("next handed out a write with none pending")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("next did not return after its context ended")
	}
}
