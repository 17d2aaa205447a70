package cleanup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// errCacheBehind is returned when the API server has PVs of an owner that
// the cache does not show yet; the loop retries quietly, and the retry
// decides on a fresher cache.
var errCacheBehind = fmt.Errorf("the PersistentVolume cache is behind the API server: %w", reconcile.ErrRetry)

// sync brings the owner key to what its cached state and that of its PVs
// call for. It requeues the owner after a while if a node is waiting out
// its grace period. It decides from the caches, writes with preconditions,
// and remembers only what it announced and since when nodes are gone, so
// running it again, or after a restart, is harmless.
func (c *Controller) sync(ctx context.Context, key OwnerKey) (reconcile.Result, error) {
	logger := klog.FromContext(ctx)
	k, ok := c.kinds[key.Kind]
	if !ok {
		// Not a key the handlers make; retrying cannot help.
		logger.Error(nil, "Dropping a key of an unknown kind", "key", key)
		return reconcile.Done, nil
	}
	o, err := c.cachedOwner(key)
	if err != nil {
		return reconcile.Done, err
	}
	if o == nil {
		c.forgetOwner(key)
		return reconcile.Done, nil
	}
	has := finalizer.Has(o.meta, local.LocalVolumeProtectionFinalizer)
	switch {
	case !c.enabled:
		c.forgetOwner(key)
		if !has || o.meta.GetAnnotations()[ManagedByAnnotation] != managedByValue {
			// Not ours to remove: local-storage-operator puts the same
			// finalizer on the same kinds.
			return reconcile.Done, nil
		}
		logger.V(2).Info("Removing the finalizer: the LocalVolumeCleanup feature is off")
		_, err := c.removeOwnerFinalizer(ctx, k, o)
		return reconcile.Done, err
	case o.meta.GetDeletionTimestamp() == nil:
		c.forgetOwner(key)
		if !has {
			// The status waits for the next sync: this write changes the
			// version a status patch would be pinned to, and the update
			// event brings the owner back if its status is off.
			return reconcile.Done, c.addOwnerFinalizer(ctx, k, o)
		}
		return reconcile.Done, c.writeStatus(ctx, k, o, c.volumeCount(key), nil)
	case !has:
		// Done, by this controller or by hand.
		c.forgetOwner(key)
		return reconcile.Done, nil
	}
	return c.syncDeleting(ctx, k, o)
}

// syncDeleting handles an owner being deleted that still has its
// finalizer: each of its PVs by its state, and the finalizer once none is
// left.
func (c *Controller) syncDeleting(ctx context.Context, k *kind, o *owner) (reconcile.Result, error) {
	ref := ownerRef(k.gvr, o)
	objs, err := c.volumeIndex.ByIndex(ownerIndex, indexKey(o.key))
	if err != nil {
		return reconcile.Done, err
	}
	if len(objs) == 0 {
		return reconcile.Done, c.complete(ctx, k, o, ref)
	}
	volumes := make([]*corev1.PersistentVolume, 0, len(objs))
	for _, obj := range objs {
		if pv, ok := obj.(*corev1.PersistentVolume); ok {
			volumes = append(volumes, pv)
		}
	}
	slices.SortFunc(volumes, func(a, b *corev1.PersistentVolume) int { return strings.Compare(a.Name, b.Name) })

	blocks := map[string]blockage{}
	var after time.Duration
	var errs []error
	for _, pv := range volumes {
		vctx := klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "PV", klog.KObj(pv)))
		b, wait, err := c.syncVolume(vctx, o, ref, pv)
		if b != nil {
			blocks[pv.Name] = *b
		}
		if wait > 0 && (after == 0 || wait < after) {
			after = wait
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("PersistentVolume %s: %w", pv.Name, err))
		}
	}
	c.announceBlocked(o.key, ref, blocks)
	// A PV whose sync failed may block unseen: the condition is written
	// when none failed, or when it is True anyway (then maybe short of
	// that PV until the retry), and otherwise left as it is.
	var blocked *metav1.Condition
	if len(errs) == 0 || len(blocks) > 0 {
		cond := deletionBlocked(blocks, o.meta.GetGeneration(), c.clock.Now())
		blocked = &cond
	}
	if err := c.writeStatus(ctx, k, o, toInt32(len(objs)), blocked); err != nil {
		errs = append(errs, err)
	}
	return reconcile.RequeueAfter(after), errors.Join(errs...)
}

// syncVolume handles one PV of an owner being deleted. It returns what
// blocks the deletion, if the PV does, and how long until its node may be
// taken as gone, if it is missing or not selected.
func (c *Controller) syncVolume(ctx context.Context, o *owner, ref *corev1.ObjectReference, pv *corev1.PersistentVolume) (*blockage, time.Duration, error) {
	logger := klog.FromContext(ctx)
	if pv.ResourceVersion == "" {
		// A copy written to a shared cache by a client, as the provisioning
		// library does with the PVs it creates: no precondition can be
		// pinned to it. Decide on the stored one.
		live, err := c.client.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, 0, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read PersistentVolume without a resourceVersion in the cache: %w", err)
		}
		pv = live
	}
	released := pv.Status.Phase == corev1.VolumeReleased || pv.Status.Phase == corev1.VolumeFailed
	switch {
	case released && pv.DeletionTimestamp == nil && pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete:
		// Retain (or Recycle, which nothing implements for local
		// volumes): the data is the user's to save. Once they delete the
		// PV it is handled as any PV being deleted.
		b := retainedBlockage(pv)
		return &b, 0, nil
	case !released && (pv.Status.Phase == corev1.VolumeBound || (pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID != "")):
		// Bound, or being bound: the binder writes claimRef first. A
		// Released PV keeps the claimRef of its deleted claim, hence the
		// phase check. Bound blocks even when the PV is being deleted or
		// its node is gone: only the user can let go of the claim.
		b := boundBlockage(pv)
		return &b, 0, nil
	}

	r, err := c.nodeReach(ctx, o, pv)
	if err != nil {
		return nil, 0, err
	}
	if r.lost {
		return nil, 0, c.abandon(ctx, ref, pv, r)
	}
	if pv.DeletionTimestamp == nil && !released {
		// Available, Pending, or no phase yet: never bound, and it must
		// never be. Done at once even while the node's grace period runs,
		// as the deletion is always right and closes the binding window.
		if err := c.release(ctx, ref, pv, r.node); err != nil {
			return nil, 0, err
		}
	} else {
		// Released or Failed with policy Delete, or being deleted: the
		// node agent wipes, deletes, and removes its finalizer.
		logger.V(4).Info("Waiting for the node agent", "phase", pv.Status.Phase, "deleting", pv.DeletionTimestamp != nil, "node", r.node)
	}
	if r.wait > 0 {
		logger.V(2).Info("The PV's node is unreachable; waiting out the grace period", "node", r.node, "reason", r.why, "remaining", r.wait)
	}
	return nil, r.wait, nil
}

// deleteVolume deletes pv if it is still the version the decision was made
// on: a claim bound to it since makes the API server answer 409 Conflict,
// and the next sync sees it bound.
func (c *Controller) deleteVolume(ctx context.Context, pv *corev1.PersistentVolume) error {
	uid, rv := pv.UID, pv.ResourceVersion
	return c.client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv},
	})
}

// release deletes an unbound PV so that no claim can bind it. The PV stays,
// being deleted, until its node agent removes its symlink and finalizer.
func (c *Controller) release(ctx context.Context, ref *corev1.ObjectReference, pv *corev1.PersistentVolume, node string) error {
	if err := c.deleteVolume(ctx, pv); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("delete unbound PersistentVolume: %w", err)
	}
	c.metrics.VolumesReleased.Inc()
	klog.FromContext(ctx).V(2).Info("Deleted unbound PV so that no claim can bind it", "node", node)
	c.recorder.Event(ref, corev1.EventTypeNormal, ReasonVolumeReleased, releasedMessage(pv, node))
	return nil
}

// abandon lets go of a PV whose node is lost: it deletes it (with
// preconditions) if nobody has, and removes the symlink-deleter finalizer
// that no node agent will. The event and count come with the last of these
// writes, so a sync that fails half-way does not announce it twice.
func (c *Controller) abandon(ctx context.Context, ref *corev1.ObjectReference, pv *corev1.PersistentVolume, r reach) error {
	logger := klog.FromContext(ctx)
	wrote := false
	if pv.DeletionTimestamp == nil {
		if err := c.deleteVolume(ctx, pv); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("delete PersistentVolume on lost node %s: %w", r.node, err)
		}
		wrote = true
		// The deletion changed the PV: the finalizer patch needs the new
		// version.
		live, err := c.client.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			c.abandoned(ctx, ref, pv, r)
			return nil
		case err != nil:
			// The next sync sees the PV being deleted and removes the
			// finalizer.
			return fmt.Errorf("read PersistentVolume deleted on lost node %s: %w", r.node, err)
		case live.UID != pv.UID:
			c.abandoned(ctx, ref, pv, r)
			return nil
		}
		pv = live
	}
	removed, err := finalizer.Remove(ctx, c.volumeTarget, pv, local.SymlinkDeleterFinalizer)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	default:
		wrote = wrote || removed
	}
	if wrote {
		c.abandoned(ctx, ref, pv, r)
	} else {
		logger.V(4).Info("PV on a lost node is being deleted; waiting for its other finalizers", "node", r.node, "finalizers", pv.Finalizers)
	}
	return nil
}

func (c *Controller) abandoned(ctx context.Context, ref *corev1.ObjectReference, pv *corev1.PersistentVolume, r reach) {
	c.metrics.VolumesAbandoned.Inc()
	klog.FromContext(ctx).Info("Let go of a PV whose node is lost; its device and symlink were left untouched", "node", r.node, "reason", r.why)
	c.recorder.Event(ref, corev1.EventTypeWarning, ReasonVolumeAbandoned, abandonedMessage(pv, r))
}

// complete removes the finalizer of an owner whose PVs are all gone. The
// cache may lag behind a PV the node agent created just before it saw the
// deletion, so the API server is asked too: removing the finalizer over a
// PV would leave that PV, Available, without an owner.
func (c *Controller) complete(ctx context.Context, k *kind, o *owner, ref *corev1.ObjectReference) error {
	selector := labels.SelectorFromSet(ownerLabels(o.key))
	list, err := c.client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return fmt.Errorf("list PersistentVolumes of %s: %w", o.key, err)
	}
	if len(list.Items) > 0 {
		return fmt.Errorf("%d PersistentVolume(s), such as %s, not in the cache yet: %w", len(list.Items), list.Items[0].Name, errCacheBehind)
	}
	removed, err := c.removeOwnerFinalizer(ctx, k, o)
	if err != nil {
		return err
	}
	c.forgetOwner(o.key)
	if !removed {
		// Gone meanwhile.
		return nil
	}
	c.recorder.Event(ref, corev1.EventTypeNormal, ReasonDeletionCompleted, completedMessage(k.name))
	return nil
}
