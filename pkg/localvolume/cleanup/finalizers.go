package cleanup

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// ManagedByAnnotation marks a LocalVolume or LocalVolumeSet whose finalizer
// this controller added. local-storage-operator uses the same finalizer on
// the same kinds, so with the feature off only marked objects lose it: a
// cluster that also runs that operator keeps its finalizers.
const ManagedByAnnotation = "local.storage.csi-protect.io/cleanup-managed-by"

const managedByValue = "csi-provisioner"

// addOwnerFinalizer adds the finalizer and the marker annotation in one
// write pinned to the version the decision was made on.
func (c *Controller) addOwnerFinalizer(ctx context.Context, k *kind, o *owner) error {
	wrote, err := finalizer.Add(ctx, k.target, o.meta, local.LocalVolumeProtectionFinalizer,
		finalizer.WithAnnotation(ManagedByAnnotation, managedByValue))
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	if wrote {
		klog.FromContext(ctx).V(2).Info("Added finalizer", "finalizer", local.LocalVolumeProtectionFinalizer)
	}
	return nil
}

// removeOwnerFinalizer removes the finalizer, and the marker with it, with
// a write valid only on the version the decision was made on, and tells
// whether it did.
func (c *Controller) removeOwnerFinalizer(ctx context.Context, k *kind, o *owner) (bool, error) {
	removed, err := finalizer.Remove(ctx, k.target, o.meta, local.LocalVolumeProtectionFinalizer,
		finalizer.WithoutAnnotation(ManagedByAnnotation))
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil || !removed:
		return false, err
	}
	c.metrics.FinalizersRemoved.Inc()
	klog.FromContext(ctx).V(2).Info("Removed finalizer", "finalizer", local.LocalVolumeProtectionFinalizer)
	return true, nil
}
