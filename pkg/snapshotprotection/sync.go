package snapshotprotection

import (
	"context"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// sync removes the source-protection finalizer of snapshot key once nothing
// reads the snapshot, in a write pinned to the version it decided on. It
// reads only caches and this process's record of restores, so running it
// again after a crash at any line is safe.
func (c *Controller) sync(ctx context.Context, key cache.ObjectName) (reconcile.Result, error) {
	snapshot, err := c.snapshots.VolumeSnapshots(key.Namespace).Get(key.Name)
	if err != nil {
		return reconcile.Done, reconcile.IgnoreNotFound(err)
	}
	if !finalizer.Has(snapshot, provisionstate.SnapshotSourceProtectionFinalizer) {
		return reconcile.Done, nil
	}
	logger := klog.FromContext(ctx)
	// Read before the claims: a restore that ends between the two reads
	// has its claim pending in the index, or its end requeues the key.
	if c.readers.Reading(key) {
		logger.V(4).Info("A restore of this process reads the snapshot")
		return reconcile.Done, nil
	}
	pending, err := c.claimIndex.ByIndex(pendingRestoreIndex, key.String())
	if err != nil {
		return reconcile.Done, err
	}
	if len(pending) > 0 {
		logger.V(4).Info("Claims restoring from the snapshot wait for their volume", "pending", len(pending))
		return reconcile.Done, nil
	}

	wrote, err := finalizer.Remove(ctx, finalizer.VolumeSnapshots(c.client), snapshot, provisionstate.SnapshotSourceProtectionFinalizer)
	switch {
	case apierrors.IsNotFound(err):
		return reconcile.Done, nil
	case apierrors.IsForbidden(err):
		c.recorder.Event(snapshot, v1.EventTypeWarning, ReasonFinalizerWriteForbidden, err.Error())
		return reconcile.Done, err
	case err != nil:
		return reconcile.Done, err
	}
	if wrote {
		c.metrics.FinalizersRemoved.Inc()
		logger.V(2).Info("Removed source-protection finalizer: no provisioning reads the snapshot", "finalizer", provisionstate.SnapshotSourceProtectionFinalizer)
	}
	return reconcile.Done, nil
}
