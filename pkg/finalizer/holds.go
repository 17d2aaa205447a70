package finalizer

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Gauge is the held-objects gauge a Holds keeps current.
type Gauge interface{ Set(float64) }

// HoldsOptions configure a Holds.
type HoldsOptions struct {
	// Gauge is set to the number of held objects.
	Gauge Gauge
	// Age, if set, reports the age of the oldest hold.
	Age *metricsutil.AgeGauge
	// Recorder gets the held and released events.
	Recorder record.EventRecorder
	// HeldReason and ReleasedReason are the events' reasons.
	HeldReason, ReleasedReason string
	// Clock dates a hold of an object that is not being deleted; nil is
	// the real clock.
	Clock clock.PassiveClock
}

// Holds remembers which objects' deletion a finalizer holds, so that a hold
// is announced once when it starts (again when what holds it changes), its
// end is announced at all, and the gauge counts them. It is memory only:
// after a restart the controller simply sees each object afresh.
type Holds[K comparable] struct {
	opts HoldsOptions
	mu   sync.Mutex
	held map[K]hold
}

// hold is what an object was announced as held by. The UID tells an object
// from a later one of the same name. since is when the hold started.
type hold struct {
	uid   types.UID
	by    string
	since time.Time
}

// NewHolds returns an empty Holds.
func NewHolds[K comparable](opts HoldsOptions) *Holds[K] {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	h := &Holds[K]{opts: opts, held: map[K]hold{}}
	if opts.Age != nil {
		opts.Age.Track(h.Oldest)
	}
	return h
}

// Hold records that the object key (with uid, events recorded on about) is
// held by by, and announces message unless that very hold was announced.
// It reports whether it announced.
//
// The hold starts when the object's deletion was asked for (its
// deletionTimestamp, which a restart keeps), or now for an object not being
// deleted; a change of what holds the same object keeps its start.
func (h *Holds[K]) Hold(key K, uid types.UID, about runtime.Object, by, message string) bool {
	h.mu.Lock()
	prev, was := h.held[key]
	if was && prev.uid == uid && prev.by == by {
		h.mu.Unlock()
		return false
	}
	next := hold{uid: uid, by: by, since: h.start(about)}
	if was && prev.uid == uid {
		next.since = prev.since
	}
	h.held[key] = next
	// Set under the lock so concurrent workers cannot store counts out of
	// order.
	h.setGaugeLocked()
	h.mu.Unlock()
	h.opts.Recorder.Event(about, v1.EventTypeNormal, h.opts.HeldReason, message)
	return true
}

// HeldBy tells what the hold of this very object (not an earlier one of its
// name) was announced with, and whether it is held.
func (h *Holds[K]) HeldBy(key K, uid types.UID) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	held, ok := h.held[key]
	if !ok || held.uid != uid {
		return "", false
	}
	return held.by, true
}

// IsHeld tells whether any object of that key is held.
func (h *Holds[K]) IsHeld(key K) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.held[key]
	return ok
}

// Release ends the hold of the object key and announces message if this
// very object was held, or if heldBefore: the caller saw it held before its
// own write, and the object's deletion may have reached the informer, and
// forgotten the hold, before that write returned. It reports whether it
// announced.
func (h *Holds[K]) Release(key K, uid types.UID, about runtime.Object, message string, heldBefore bool) bool {
	h.mu.Lock()
	held, was := h.held[key]
	if was {
		delete(h.held, key)
		h.setGaugeLocked()
	}
	h.mu.Unlock()
	if (was && held.uid == uid) || heldBefore {
		h.opts.Recorder.Event(about, v1.EventTypeNormal, h.opts.ReleasedReason, message)
		return true
	}
	return false
}

// Forget drops the hold of an object that is gone or no longer concerned,
// without an event (there is nothing left to tell), and reports whether it
// was held.
func (h *Holds[K]) Forget(key K) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, was := h.held[key]
	if was {
		delete(h.held, key)
		h.setGaugeLocked()
	}
	return was
}

// Oldest is when the oldest current hold started, and false when nothing
// is held: the source of a hold-age gauge.
func (h *Holds[K]) Oldest() (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var oldest time.Time
	for _, held := range h.held {
		if oldest.IsZero() || held.since.Before(oldest) {
			oldest = held.since
		}
	}
	return oldest, len(h.held) > 0
}

// start is when a hold of about starts: its deletion's time, or now.
func (h *Holds[K]) start(about runtime.Object) time.Time {
	if obj, err := meta.Accessor(about); err == nil {
		if ts := obj.GetDeletionTimestamp(); ts != nil {
			return ts.Time
		}
	}
	return h.opts.Clock.Now()
}

// Len is the number of held objects.
func (h *Holds[K]) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.held)
}

func (h *Holds[K]) setGaugeLocked() {
	if h.opts.Gauge != nil {
		h.opts.Gauge.Set(float64(len(h.held)))
	}
}
