package agent

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// finishDeletion lets a PV being deleted go. If its owner is being deleted
// or is gone, the symlink goes first; if the owner is alive, the symlink
// stays, so the same disk (not whatever has its kernel name after a reboot)
// is offered again as a new PV. Then the SymlinkDeleterFinalizer is
// removed.
//
// A PV still Bound waits: its pod may be using the symlink.
func (a *Agent) finishDeletion(ctx context.Context, pv *corev1.PersistentVolume) error {
	logger := klog.FromContext(ctx)
	if !finalizer.Has(pv, local.SymlinkDeleterFinalizer) {
		return nil
	}
	if pv.Status.Phase == corev1.VolumeBound {
		logger.V(4).Info("PV being deleted is still bound: keeping its symlink and finalizer")
		return nil
	}
	o, err := a.getOwner(ownerKey(pv.Labels[local.OwnerKindLabel], pv.Labels[local.OwnerNamespaceLabel], pv.Labels[local.OwnerNameLabel]))
	if err != nil {
		return err
	}
	if o == nil || o.deleting {
		if err := a.removeSymlink(ctx, pv); err != nil {
			return err
		}
	} else {
		logger.V(4).Info("Owner is alive: keeping the symlink", "path", pv.Spec.Local.Path)
	}
	removed, err := finalizer.Remove(ctx, a.volumeTarget, pv, local.SymlinkDeleterFinalizer)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case removed:
		logger.V(2).Info("Removed the symlink deleter finalizer")
	}
	return nil
}

// removeSymlink removes the PV's symlink. Something that is not a symlink,
// or a path outside the symlink root, is left alone and reported: it is not
// the agent's, and the finalizer still goes, so the owner is not stuck.
func (a *Agent) removeSymlink(ctx context.Context, pv *corev1.PersistentVolume) error {
	path := pv.Spec.Local.Path
	sc, name, ok := a.splitSymlinkPath(path)
	if !ok {
		a.reportOnce("pv/"+pv.Name+"/"+ReasonSymlinkNotRemoved, func() {
			a.recorder.Eventf(pv, corev1.EventTypeWarning, ReasonSymlinkNotRemoved,
				"Not removing %s on node %s: not a symlink under %s", path, a.nodeName, a.symlinkRoot)
		})
		return nil
	}
	_, err := a.fs.Lstat(path)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil
	}
	err = devices.RemoveSymlink(a.fs, a.symlinkRoot, sc, name)
	if errors.Is(err, devices.ErrNotSymlink) {
		a.reportOnce("pv/"+pv.Name+"/"+ReasonSymlinkNotRemoved, func() {
			a.recorder.Eventf(pv, corev1.EventTypeWarning, ReasonSymlinkNotRemoved,
				"Not removing %s on node %s: not a symlink", path, a.nodeName)
		})
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove symlink %s: %w", path, err)
	}
	a.metrics.SymlinksRemoved.Inc()
	klog.FromContext(ctx).V(2).Info("Removed the symlink: its owner is deleted", "path", path)
	a.recorder.Eventf(pv, corev1.EventTypeNormal, ReasonSymlinkRemoved, "Removed symlink %s on node %s", path, a.nodeName)
	return nil
}
