package pvprotection

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// sync brings the finalizer of PV name to what its cached state calls for.
// It decides from the cache alone and writes with a resourceVersion
// precondition, so running it again, or after a restart, is harmless. Its
// decisions depend on events only, never on time.
func (c *Controller) sync(ctx context.Context, name string) (reconcile.Result, error) {
	return reconcile.Done, c.syncVolume(ctx, name)
}

func (c *Controller) syncVolume(ctx context.Context, name string) error {
	pv, err := c.volumes.Get(name)
	if apierrors.IsNotFound(err) {
		c.holds.Forget(name)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.inScope(pv) {
		c.holds.Forget(name)
		return nil
	}
	if pv.DeletionTimestamp == nil {
		// Also drops the hold of an earlier PV of the same name.
		c.holds.Forget(name)
		return c.addFinalizer(ctx, pv)
	}
	if !finalizer.Has(pv, Finalizer) {
		// Removed by someone else (kube-controller-manager, or by hand): the
		// hold, if any, is over all the same.
		c.release(pv, msgRemovedElsewhere, false)
		return nil
	}
	if pv.Status.Phase == v1.VolumeBound {
		klog.FromContext(ctx).V(4).Info("Keeping PV: a claim is bound to it", "claim", claimKey(pv))
		c.hold(pv)
		return nil
	}
	return c.removeFinalizer(ctx, pv)
}

func (c *Controller) addFinalizer(ctx context.Context, pv *v1.PersistentVolume) error {
	if finalizer.Has(pv, Finalizer) {
		return nil
	}
	if pv.ResourceVersion == "" {
		// The provisioning library puts each PV it creates into the shared
		// cache as it sent it, without a resourceVersion, and that copy
		// stays until the PV changes again. Read the stored one.
		live, err := c.client.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read PV without a resourceVersion in the cache: %w", err)
		}
		if live.DeletionTimestamp != nil {
			// The next event brings the deletion to sync.
			return nil
		}
		pv = live
	}
	wrote, err := finalizer.Add(ctx, c.target, pv, Finalizer)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || !wrote {
		return err
	}
	c.metrics.FinalizersAdded.Inc()
	klog.FromContext(ctx).V(2).Info("Added PV protection finalizer")
	return nil
}

// removeFinalizer lets a PV that no claim is bound to go. The patch is only
// valid on the version the decision was made on: if the PV was bound since,
// it fails with a conflict and the next sync keeps the finalizer.
func (c *Controller) removeFinalizer(ctx context.Context, pv *v1.PersistentVolume) error {
	wasHeld := c.heldAs(pv) // see release
	wrote, err := finalizer.Remove(ctx, c.target, pv, Finalizer)
	if apierrors.IsNotFound(err) {
		c.holds.Forget(pv.Name)
		return nil
	}
	if err != nil || !wrote {
		return err
	}
	c.metrics.FinalizersRemoved.Inc()
	klog.FromContext(ctx).V(2).Info("Removed PV protection finalizer", "phase", pv.Status.Phase)
	c.release(pv, msgUnbound, wasHeld)
	return nil
}
