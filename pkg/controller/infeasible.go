package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

// infeasibleMessage opens the event upstream's library posts when the
// driver refuses a CreateVolume as infeasible; the provisioner's error
// follows it.
const infeasibleMessage = "Volume provisioning failed with infeasible error. Retries will be delayed. "

// isInfeasible tells a driver answer that the same request will fail again
// (InvalidArgument), as upstream's library does.
func isInfeasible(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.InvalidArgument
}

// holdInfeasible starts the hold of a claim whose CreateVolume the driver
// refused as infeasible. Upstream's library (v13) does it itself; ours (v10)
// does not, so the provisioner posts upstream's event and returns an
// IgnoredError: the library then stops without an event of its own and
// without a rate-limited retry, and still counts the attempt as failed in
// its metrics. ShouldProvision keeps the claim out until the hold ends.
func (p *Provisioner) holdInfeasible(ctx context.Context, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass, err error) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "PVC", klog.KObj(claim))
	until := p.infeasible.start(logger, claim, class)
	logger.V(2).Info("Detected infeasible volume provisioning request, retries are delayed",
		"StorageClass", class.Name, "until", until, "err", err)
	p.opts.EventRecorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", infeasibleMessage+err.Error())
	return &controller.IgnoredError{Reason: fmt.Sprintf("retries are delayed until %s after an infeasible error: %v", until.Format(time.RFC3339), err)}
}

// OnClassChange ends the holds of claims whose StorageClass was replaced
// by one of the same name (a new UID), and hands them back to the library
// at once, as upstream retries them. Add it as the StorageClass informer's
// add and update handler.
func (p *Provisioner) OnClassChange(obj any) {
	class, ok := obj.(*storagev1.StorageClass)
	if !ok {
		return
	}
	for _, h := range p.infeasible.endForClass(class) {
		h.logger.V(2).Info("StorageClass was replaced, retrying at once", "StorageClass", class.Name)
		p.library.RequeueClaim(h.logger, h.claim, h.uid)
	}
}

// infeasibleHolds are the claims held back after an infeasible CreateVolume,
// by UID. Upstream keeps them in csi-lib-utils' slowset, which reads the
// wall clock and is looked at by the library's rate-limited retries; here
// each hold has a timer on the injected clock that hands the claim back to
// the library when it ends, so nothing polls and tests need not wait.
type infeasibleHolds struct {
	clock clock.WithDelayedExecution
	hold  time.Duration
	// ended hands a claim whose hold ended back to the library.
	ended func(logger klog.Logger, name cache.ObjectName, uid types.UID)

	mu   sync.Mutex
	held map[types.UID]*infeasibleHold
}

type infeasibleHold struct {
	uid   types.UID
	claim cache.ObjectName
	// class and classUID are the StorageClass the attempt used: a new
	// class of the same name ends the hold.
	class    string
	classUID types.UID
	until    time.Time
	timer    clock.Timer
	// logger is the failed attempt's, for what happens when the hold ends.
	logger klog.Logger
}

func newInfeasibleHolds(c clock.WithDelayedExecution, hold time.Duration, ended func(klog.Logger, cache.ObjectName, types.UID)) *infeasibleHolds {
	return &infeasibleHolds{clock: c, hold: hold, ended: ended, held: map[types.UID]*infeasibleHold{}}
}

// start holds claim for the hold period from now, replacing any earlier
// hold, and returns when it ends.
func (s *infeasibleHolds) start(logger klog.Logger, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass) time.Time {
	h := &infeasibleHold{
		uid: claim.UID, claim: cache.MetaObjectToName(claim),
		class: class.Name, classUID: class.UID, until: s.clock.Now().Add(s.hold),
		logger: logger,
	}
	s.mu.Lock()
	previous := s.held[h.uid]
	s.held[h.uid] = h
	s.mu.Unlock()
	s.stop(previous)
	// The timer is made outside the lock: a fake clock runs its callback
	// under its own lock, and the callback takes ours.
	timer := s.clock.AfterFunc(s.hold, func() {
		if s.end(h) {
			h.logger.V(2).Info("Infeasible hold ended, retrying")
			s.ended(h.logger, h.claim, h.uid)
		}
	})
	s.mu.Lock()
	current := s.held[h.uid] == h
	if current {
		h.timer = timer
	}
	s.mu.Unlock()
	if !current {
		// Ended (or replaced) meanwhile.
		timer.Stop()
	}
	return h.until
}

// holding tells whether claim is held, and for how long still. As
// upstream, a claim whose class is missing is not held (the library fails
// on the missing class), and a class of another UID ends the hold.
func (s *infeasibleHolds) holding(claim *v1.PersistentVolumeClaim, classes storagelisters.StorageClassLister) (time.Duration, bool) {
	until, held := s.until(claim, classes)
	if !held {
		return 0, false
	}
	return until.Sub(s.clock.Now()), true
}

// until tells whether claim is held, as holding does, and until when: the
// very time the hold was given, so that a reader reporting it reports the
// same time each time it asks.
func (s *infeasibleHolds) until(claim *v1.PersistentVolumeClaim, classes storagelisters.StorageClassLister) (time.Time, bool) {
	s.mu.Lock()
	h := s.held[claim.UID]
	s.mu.Unlock()
	if h == nil {
		return time.Time{}, false
	}
	class, err := classes.Get(h.class)
	if err != nil {
		return time.Time{}, false
	}
	if class.UID != h.classUID || !h.until.After(s.clock.Now()) {
		s.stop(h)
		return time.Time{}, false
	}
	return h.until, true
}

// release ends the hold of a claim, if any.
func (s *infeasibleHolds) release(uid types.UID) {
	s.mu.Lock()
	h := s.held[uid]
	s.mu.Unlock()
	s.stop(h)
}

// endForClass ends the holds that a new class of the same name ends.
func (s *infeasibleHolds) endForClass(class *storagev1.StorageClass) []*infeasibleHold {
	s.mu.Lock()
	var replaced []*infeasibleHold
	for _, h := range s.held {
		if h.class == class.Name && h.classUID != class.UID {
			replaced = append(replaced, h)
		}
	}
	s.mu.Unlock()
	var ended []*infeasibleHold
	for _, h := range replaced {
		if s.stop(h) {
			ended = append(ended, h)
		}
	}
	return ended
}

// end drops h if it is still the claim's hold, and reports whether it was.
func (s *infeasibleHolds) end(h *infeasibleHold) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h == nil || s.held[h.uid] != h {
		return false
	}
	delete(s.held, h.uid)
	return true
}

// stop ends h and stops its timer.
func (s *infeasibleHolds) stop(h *infeasibleHold) bool {
	if h == nil {
		return false
	}
	s.mu.Lock()
	timer := h.timer
	s.mu.Unlock()
	if !s.end(h) {
		return false
	}
	if timer != nil {
		timer.Stop()
	}
	return true
}

// len is the number of claims held.
func (s *infeasibleHolds) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held)
}
