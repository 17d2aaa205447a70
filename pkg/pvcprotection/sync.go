package pvcprotection

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// sync brings the finalizer of claim key in line with the rules. It decides
// from the caches (and, for a claim being deleted, a freshness check), and
// every write is conditional on the claim version it decided from, so it is
// safe to run any number of times and after a restart.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	claim, err := c.claims.PersistentVolumeClaims(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.inScope(claim) {
		c.forget(key)
		return nil
	}
	has := finalizer.Has(claim, Finalizer)
	if claim.DeletionTimestamp == nil {
		if has {
			return nil
		}
		return c.addFinalizer(ctx, claim)
	}
	if !has {
		// Someone else released it, or it never had it.
		c.released(claim, "", false)
		return nil
	}
	if c.alreadyReleased(claim) {
		return nil
	}

	seen := c.seenDeleting(claim)
	blockers, err := c.indexedBlockers(claim)
	if err != nil {
		return err
	}
	if len(blockers) == 0 {
		// The index may lag behind a pod created just before the deletion.
		fresh, err := c.fresh.Fresh(ctx, namespace, seen)
		if err != nil {
			return err
		}
		switch {
		case fresh.ready:
			// Look again: the index may have received the pod meanwhile.
			blockers, err = c.indexedBlockers(claim)
			if err != nil {
				return err
			}
		case fresh.live != nil:
			blockers = liveBlockers(fresh.live, claim)
		default:
			klog.FromContext(ctx).V(5).Info("Pod cache is catching up, looking again shortly")
			c.queue.AddAfter(key, c.notReadyDelay)
			return nil
		}
	}
	if len(blockers) > 0 {
		if logger := klog.FromContext(ctx).V(4); logger.Enabled() {
			logger.Info("Claim is in use, keeping its finalizer", "pod", klog.KObj(blockers[0]), "pods", len(blockers))
		}
		c.hold(claim, blockers)
		return nil
	}
	return c.removeFinalizer(ctx, claim)
}

func (c *Controller) indexedBlockers(claim *v1.PersistentVolumeClaim) ([]*v1.Pod, error) {
	objs, err := c.pods.ByIndex(podClaimIndex, claimKey(claim))
	if err != nil {
		return nil, fmt.Errorf("look up the pods of claim %s: %w", claimKey(claim), err)
	}
	return blockingPods(objs, claim), nil
}

func liveBlockers(live *livePods, claim *v1.PersistentVolumeClaim) []*v1.Pod {
	var out []*v1.Pod
	for _, pod := range live.byClaim[claim.Name] {
		if podBlocks(pod, claim) {
			out = append(out, pod)
		}
	}
	sortPods(out)
	return out
}

func (c *Controller) addFinalizer(ctx context.Context, claim *v1.PersistentVolumeClaim) error {
	patch, err := finalizer.AddPatch(claim, Finalizer)
	if err != nil || patch == nil {
		return err
	}
	if err := c.patch(ctx, claim, patch); err != nil {
		return err
	}
	c.metrics.FinalizersAdded.Inc()
	klog.FromContext(ctx).V(2).Info("Added the pvc-protection finalizer")
	return nil
}

func (c *Controller) removeFinalizer(ctx context.Context, claim *v1.PersistentVolumeClaim) error {
	patch, err := finalizer.RemovePatch(claim, Finalizer)
	if err != nil || patch == nil {
		return err
	}
	// Asked before the write: the claim's deletion event may reach the
	// informer, and forget the hold, before the patch call returns.
	wasHeld := c.isHeld(claim)
	if err := c.patch(ctx, claim, patch); err != nil {
		return err
	}
	c.metrics.FinalizersRemoved.Inc()
	klog.FromContext(ctx).V(2).Info("Removed the pvc-protection finalizer: no pod uses the claim")
	c.released(claim, claim.ResourceVersion, wasHeld)
	return nil
}

// patch writes a finalizer patch. A claim that is gone needs nothing more;
// a 409 Conflict goes back to the caller as is, for a quiet retry.
func (c *Controller) patch(ctx context.Context, claim *v1.PersistentVolumeClaim, patch []byte) error {
	_, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Patch(ctx, claim.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		c.forget(claimKey(claim))
		return nil
	case apierrors.IsConflict(err):
		return err
	case apierrors.IsForbidden(err):
		return fmt.Errorf("update the finalizers of claim %s: the RBAC rule for persistentvolumeclaims must allow patch: %w", claimKey(claim), err)
	}
	return fmt.Errorf("update the finalizers of claim %s: %w", claimKey(claim), err)
}
