package recyclebin

import (
	"time"

	"context"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Bin answers, from the caches alone, whether a released PV's volume is
// kept. The provisioner asks it before every deletion, so with retention off
// it costs no API request.
type Bin struct {
	policy  Policy
	classes storagelisters.StorageClassLister
	claims  corelisters.PersistentVolumeClaimLister
	clock   clock.PassiveClock
}

// BinOptions are what a Bin reads: classes and claims from the caches.
type BinOptions struct {
	Policy  Policy
	Classes storagelisters.StorageClassLister
	Claims  corelisters.PersistentVolumeClaimLister
	// Clock nil is the real clock.
	Clock clock.PassiveClock
}

// NewBin returns a Bin.
func NewBin(opts BinOptions) *Bin {
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Bin{policy: opts.Policy, classes: opts.Classes, claims: opts.Claims, clock: clk}
}

// Decide says what becomes of pv's volume now. What is recorded on the PV
// (a deadline, a purge) and its deletion are decided first: the class is
// read only for a release with nothing recorded, so a class changed or
// broken later moves no recorded deadline.
func (b *Bin) Decide(pv *v1.PersistentVolume) (Decision, error) {
	now := b.clock.Now()
	d, err := Decide(pv, 0, now)
	if err != nil || d.State != Delete || !releasedWithDelete(pv) {
		return d, err
	}
	if b.claimed(pv) {
		return Decision{State: Rebinding}, nil
	}
	retention, err := b.retention(pv)
	if err != nil {
		return Decision{State: Keep}, err
	}
	return Decide(pv, retention, now)
}

func releasedWithDelete(pv *v1.PersistentVolume) bool {
	return pv.Status.Phase == v1.VolumeReleased && reclaimPolicy(pv) == v1.PersistentVolumeReclaimDelete
}

// Holds reports whether pv's volume must not be deleted now. A decision
// that fails holds: bad input never deletes data, and the bin's controller
// reports the error.
func (b *Bin) Holds(ctx context.Context, pv *v1.PersistentVolume) bool {
	d, err := b.Decide(pv)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Keeping the volume: the recycle bin cannot decide", "PV", klog.KObj(pv))
		return true
	}
	if d.State.Holds() {
		klog.FromContext(ctx).V(4).Info("Volume kept by the recycle bin", "PV", klog.KObj(pv), "state", d.State, "until", d.Until)
	}
	return d.State.Holds()
}

// claimed: the released pv, with nothing recorded, was given back to the
// claim it names, which exists and is not being deleted: the two are about
// to be bound. Only a give-back is looked at, so that a release is decided
// as without the bin even while the claim cache lags behind a deletion.
func (b *Bin) claimed(pv *v1.PersistentVolume) bool {
	ref := pv.Spec.ClaimRef
	if b.claims == nil || ref == nil || pv.Annotations[AnnRestoredTo] != claimID(ref.Namespace, ref.Name, ref.UID) {
		return false
	}
	claim, err := b.claims.PersistentVolumeClaims(ref.Namespace).Get(ref.Name)
	return err == nil && claim.UID == ref.UID && claim.DeletionTimestamp == nil
}

// retention is what pv's class sets today; a class that is gone, or none,
// gives the default.
func (b *Bin) retention(pv *v1.PersistentVolume) (time.Duration, error) {
	if pv.Spec.StorageClassName == "" || b.classes == nil {
		return b.policy.For(nil)
	}
	class, err := b.classes.Get(pv.Spec.StorageClassName)
	if apierrors.IsNotFound(err) {
		return b.policy.For(nil)
	}
	if err != nil {
		return 0, err
	}
	return b.policy.For(class)
}
