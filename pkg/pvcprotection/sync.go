package pvcprotection

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// sync brings the finalizer of claim key in line with the rules. It decides
// from the caches (and, for a claim being deleted, a freshness check), and
// every write is conditional on the claim version it decided from, so it is
// safe to run any number of times and after a restart. It asks to be run
// again shortly when the pod index is about to catch up with a freshness
// check.
func (c *Controller) sync(ctx context.Context, key cache.ObjectName) (reconcile.Result, error) {
	claim, err := c.claims.PersistentVolumeClaims(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		c.forget(key)
		return reconcile.Done, nil
	}
	if err != nil {
		return reconcile.Done, err
	}
	if !c.inScope(claim) {
		c.forget(key)
		return reconcile.Done, nil
	}
	has := finalizer.Has(claim, Finalizer)
	if claim.DeletionTimestamp == nil {
		if has {
			return reconcile.Done, nil
		}
		return reconcile.Done, c.addFinalizer(ctx, claim)
	}
	if !has {
		// Someone else released it, or it never had it.
		c.released(claim, "", false)
		return reconcile.Done, nil
	}
	if c.alreadyReleased(claim) {
		return reconcile.Done, nil
	}

	seen := c.seenDeleting(claim)
	blockers, err := c.indexedBlockers(claim)
	if err != nil {
		return reconcile.Done, err
	}
	if len(blockers) == 0 {
		// The index may lag behind a pod created just before the deletion.
		fresh, err := c.fresh.Fresh(ctx, key.Namespace, seen)
		if err != nil {
			return reconcile.Done, err
		}
		switch {
		case fresh.ready:
			// Look again: the index may have received the pod meanwhile.
			blockers, err = c.indexedBlockers(claim)
			if err != nil {
				return reconcile.Done, err
			}
		case fresh.live != nil:
			blockers = liveBlockers(fresh.live, claim)
		default:
			klog.FromContext(ctx).V(5).Info("Pod cache is catching up, looking again shortly")
			return reconcile.RequeueAfter(c.notReadyDelay), nil
		}
	}
	if len(blockers) > 0 {
		if logger := klog.FromContext(ctx).V(4); logger.Enabled() {
			logger.Info("Claim is in use, keeping its finalizer", "pod", klog.KObj(blockers[0]), "pods", len(blockers))
		}
		c.hold(claim, blockers)
		return reconcile.Done, nil
	}
	return reconcile.Done, c.removeFinalizer(ctx, claim)
}

func (c *Controller) indexedBlockers(claim *v1.PersistentVolumeClaim) ([]*v1.Pod, error) {
	objs, err := c.pods.ByIndex(podClaimIndex, indexKey(claim.Namespace, claim.Name))
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
	wrote, err := finalizer.Add(ctx, c.target, claim, Finalizer)
	if err != nil || !wrote {
		return c.writeFailed(claim, err)
	}
	c.metrics.FinalizersAdded.Inc()
	klog.FromContext(ctx).V(2).Info("Added the pvc-protection finalizer")
	return nil
}

func (c *Controller) removeFinalizer(ctx context.Context, claim *v1.PersistentVolumeClaim) error {
	// Asked before the write: the claim's deletion event may reach the
	// informer, and forget the hold, before the patch call returns.
	wasHeld := c.isHeld(claim)
	wrote, err := finalizer.Remove(ctx, c.target, claim, Finalizer)
	if err != nil || !wrote {
		return c.writeFailed(claim, err)
	}
	c.metrics.FinalizersRemoved.Inc()
	klog.FromContext(ctx).V(2).Info("Removed the pvc-protection finalizer: no pod uses the claim")
	c.released(claim, claim.ResourceVersion, wasHeld)
	return nil
}

// writeFailed handles the error of a finalizer write: a claim that is gone
// needs nothing more; anything else goes back to the loop, which retries a
// 409 Conflict quietly. Package finalizer's errors already name the claim
// and, when RBAC refused the patch, the rule to fix.
func (c *Controller) writeFailed(claim *v1.PersistentVolumeClaim, err error) error {
	if apierrors.IsNotFound(err) {
		c.forget(claimKey(claim))
		return nil
	}
	return err
}
