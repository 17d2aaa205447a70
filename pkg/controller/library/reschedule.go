package library

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/lru"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The library sends a claim back to the scheduler (ProvisioningReschedule)
// with an update of the copy it handed to Provision, less the selected-node
// annotation. When Provision wrote the provisioning-protection finalizer,
// that copy is one version behind and the update conflicts, so the library
// provisions the claim again, with one more CreateVolume, before the
// scheduler may pick another node; upstream, without the finalizer, needs
// one. Client therefore redoes the library's change on the copy the
// finalizer write returned: that copy is complete (the API server's answer,
// not a trimmed cache copy), and pinned to its version the write fails if
// anything else changed the claim since.

// FinalizerWrite is a provisioning-protection finalizer write of a claim.
type FinalizerWrite struct {
	// From is the resourceVersion the write was pinned to.
	From string
	// Claim is the API server's answer.
	Claim *v1.PersistentVolumeClaim
}

// FinalizerWritten records the provisioning-protection finalizer write
// of a claim the scheduler placed, for the library's reschedule should
// CreateVolume ask for one. The last write of a claim counts.
func (a *Adapter) FinalizerWritten(write FinalizerWrite) { a.writes.wrote(write) }

// ForgetFinalizerWrite forgets the write of claim uid: Provision ended
// in a state other than ProvisioningReschedule, so only a reschedule
// could have used it.
func (a *Adapter) ForgetFinalizerWrite(uid types.UID) { a.writes.forget(uid) }

// Superseded tells whether claim is a copy of a version a reschedule
// replaced, which must not be provisioned: the node just given back would
// get one more CreateVolume.
func (a *Adapter) Superseded(claim *v1.PersistentVolumeClaim) bool {
	return a.writes.isSuperseded(claim)
}

// finalizerWrites remembers the last finalizer write of each claim being
// provisioned, from the write until the library's reschedule takes it or
// Provision ends in any other state. The library updates a claim right
// after Provision returns, so few are ever kept; the bound is a safety net.
type finalizerWrites struct {
	cache *lru.Cache
	// superseded holds, per rescheduled claim, the version our finalizer
	// write made, which the reschedule replaced. The informer may deliver
	// that version after the library stored the rescheduled claim in its
	// cache, putting the selected node back there until the reschedule's
	// own event arrives: a copy of that version is stale and must not be
	// provisioned, or the node just given back gets one more CreateVolume.
	superseded *lru.Cache
}

// finalizerWritesKept is far more than the Provision calls running at once.
const finalizerWritesKept = 1000

func newFinalizerWrites() *finalizerWrites {
	return &finalizerWrites{cache: lru.New(finalizerWritesKept), superseded: lru.New(finalizerWritesKept)}
}

func (w *finalizerWrites) wrote(write FinalizerWrite) {
	w.cache.Add(write.Claim.UID, write)
}

// take returns the write of claim uid and forgets it.
func (w *finalizerWrites) take(uid types.UID) (FinalizerWrite, bool) {
	v, ok := w.cache.Get(uid)
	if !ok {
		return FinalizerWrite{}, false
	}
	w.cache.Remove(uid)
	return v.(FinalizerWrite), true
}

func (w *finalizerWrites) forget(uid types.UID) { w.cache.Remove(uid) }

// isSuperseded tells whether claim is a copy of a version a reschedule
// replaced. Any other version of the claim ends that watch: the cache has
// moved past the superseded one.
func (w *finalizerWrites) isSuperseded(claim *v1.PersistentVolumeClaim) bool {
	v, ok := w.superseded.Get(claim.UID)
	if !ok {
		return false
	}
	if v.(string) == claim.ResourceVersion {
		return true
	}
	w.superseded.Remove(claim.UID)
	return false
}

func (w *finalizerWrites) len() int { return w.cache.Len() }

// rescheduleAfterFinalizerWrite sends the library's reschedule update of
// claim, when our finalizer write alone made it stale, as the same change
// of the copy that write returned. It returns false when that is not the
// case: the library's update is then sent as it is.
func (c libraryClaims) rescheduleAfterFinalizerWrite(ctx context.Context, claim *v1.PersistentVolumeClaim, opts metav1.UpdateOptions) (*v1.PersistentVolumeClaim, bool, error) {
	write, ok := c.writes.take(claim.UID)
	if !ok || write.From != claim.ResourceVersion {
		// No write of ours, or the library's copy was older than the one
		// our write started from: what else changed is not known here.
		return nil, false, nil
	}
	if _, libraryHas := claim.Annotations[provisionstate.AnnSelectedNode]; libraryHas {
		// Not the library's reschedule, its only update of a claim.
		return nil, false, nil
	}
	if _, wroteWith := write.Claim.Annotations[provisionstate.AnnSelectedNode]; !wroteWith {
		return nil, false, nil
	}
	// The library's update is bound to conflict with our write: send the
	// library's change, and nothing else, on the version our write made.
	redo := write.Claim.DeepCopy()
	delete(redo.Annotations, provisionstate.AnnSelectedNode)
	updated, err := c.PersistentVolumeClaimInterface.Update(ctx, redo, opts)
	// The library's context names the claim.
	logger := klog.FromContext(ctx)
	if err != nil {
		logger.V(2).Info("Rescheduling the claim after the provisioning-protection finalizer write failed", "resourceVersion", redo.ResourceVersion, "err", err)
		return updated, true, err
	}
	logger.V(4).Info("Rescheduled the claim on the version the provisioning-protection finalizer write made", "resourceVersion", redo.ResourceVersion)
	c.writes.superseded.Add(claim.UID, redo.ResourceVersion)
	// The library stores its copy in the informer cache after the update:
	// let that be the API server's copy, with our finalizer, rather than
	// one without it (managedFields are never cached).
	updated.DeepCopyInto(claim)
	claim.ManagedFields = nil
	return updated, true, nil
}
