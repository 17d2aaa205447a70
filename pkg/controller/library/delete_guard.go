package library

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/lru"
)

// VolumeDeleted records that the volume of PV uid was deleted, for
// AlreadyDeleted.
func (a *Adapter) VolumeDeleted(uid types.UID) { a.deleted.add(uid) }

// AlreadyDeleted tells the library's second pass over a PV whose volume
// this process deleted (the provisioner's ShouldDelete answers false).
// Once DeleteVolume succeeded, the library DELETEs the PV and then removes
// its finalizer; the update the DELETE caused requeues the PV meanwhile,
// and when the informer has not seen the finalizer removal yet, the
// library's next pass calls DeleteVolume and DELETEs the PV again, which
// fails with 404 once kube-controller-manager's PV protection has let the
// PV go.
//
// So for a PV whose volume this process deleted and which is now being
// deleted, the library's finalizer removal, seen through Client, decides;
// when it was not seen (it failed, or the client was not wrapped), the
// live PV decides: gone, replaced or free of the library's finalizer means
// the deletion is done. One read replaces a CSI call and a failing DELETE.
// Any other PV, or a failed read, is left to the library's own checks, as
// without this guard.
func (a *Adapter) AlreadyDeleted(ctx context.Context, pv *v1.PersistentVolume) bool {
	if pv.DeletionTimestamp == nil || !slices.Contains(pv.Finalizers, PVFinalizer) {
		return false
	}
	deleted, finalized := a.deleted.state(pv.UID)
	switch {
	case !deleted:
		return false
	case finalized:
		// The library's own patch removed the finalizer (Client saw it),
		// and a PV being deleted gets no finalizer back: this copy is
		// stale, and nothing needs to be asked.
		klog.FromContext(ctx).V(4).Info("Volume already deleted, skipping the library's second pass", "PV", pv.Name)
		return true
	}
	// A LIST of the one name answers "gone" with an empty list, where a
	// GET would answer 404: the normal case must not look like an error
	// in the API server's and the client's request metrics.
	list, err := a.opts.Client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", pv.Name).String(),
	})
	switch {
	case err != nil:
		return false
	case len(list.Items) == 0:
		return true
	}
	if live := list.Items[0]; live.UID != pv.UID || !slices.Contains(live.Finalizers, PVFinalizer) {
		klog.FromContext(ctx).V(4).Info("Volume already deleted, skipping the library's second pass", "PV", pv.Name)
		return true
	}
	// The finalizer removal of the first pass failed: the library does it
	// again, with an idempotent DeleteVolume first.
	return false
}

// deletedVolumes remembers the PVs whose volume this process deleted, the
// most recently used ones only, and for each whether the library has since
// removed its finalizer from the PV. A PV it forgot is left to the
// library, which costs at most a second idempotent DeleteVolume.
type deletedVolumes struct {
	cache *lru.Cache
}

// deletedVolumesKept is far more than the deletions in flight at once.
const deletedVolumesKept = 10000

func newDeletedVolumes(limit int) *deletedVolumes {
	return &deletedVolumes{cache: lru.New(limit)}
}

// add records that the volume of PV uid was deleted.
func (d *deletedVolumes) add(uid types.UID) {
	d.cache.Add(uid, false)
}

// finalized records that the library removed its finalizer from PV uid;
// only a PV whose volume was deleted here counts.
func (d *deletedVolumes) finalized(uid types.UID) {
	if _, ok := d.cache.Get(uid); ok {
		d.cache.Add(uid, true)
	}
}

// state tells whether the volume of PV uid was deleted here, and whether
// the library's finalizer has been removed since.
func (d *deletedVolumes) state(uid types.UID) (deleted, finalized bool) {
	v, ok := d.cache.Get(uid)
	if !ok {
		return false, false
	}
	return true, v.(bool)
}
