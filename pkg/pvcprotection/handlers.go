package pvcprotection

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// onClaim queues a claim this controller has work on: one that misses the
// finalizer, or one being deleted that carries it.
func (c *Controller) onClaim(obj interface{}) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	if !c.inScope(claim) {
		c.forget(claimKey(claim))
		return
	}
	c.dropStaleRelease(claim)
	if c.alreadyReleased(claim) {
		// A resync of the copy this process already released.
		return
	}
	deleting := claim.DeletionTimestamp != nil
	has := finalizer.Has(claim, Finalizer)
	switch {
	case deleting && has:
		// The earlier the deletion is noted, the sooner a freshness check
		// already on its way may cover it.
		c.seenDeleting(claim)
		c.loop.Add(claimKey(claim))
	case !deleting && !has:
		c.loop.Add(claimKey(claim))
	}
}

func (c *Controller) onClaimDeleted(obj interface{}) {
	if claim, ok := obj.(*v1.PersistentVolumeClaim); ok {
		c.forget(claimKey(claim))
	}
}

// onPod queues the claims a pod references when the change may free them.
// The pod index is already updated when a handler runs.
func (c *Controller) onPod(old, obj interface{}, deleted bool) {
	pod := podOf(obj)
	if pod == nil {
		return
	}
	// A pod that still runs on a node keeps blocking: nothing to do until
	// it is deleted, shut down or turns out not to run anywhere. Terminated
	// pods still block, but kubelet's clean-up is near.
	if deleted || pod.DeletionTimestamp != nil || podIsTerminated(pod) || pod.Spec.NodeName == "" {
		c.enqueueClaimsOf(pod)
	}
	// An update can hide the deletion of a pod and the creation of another
	// one with the same name: the old one may have blocked other claims.
	if oldPod := podOf(old); oldPod != nil && oldPod.UID != pod.UID {
		c.enqueueClaimsOf(oldPod)
	}
}

// enqueueClaimsOf queues the pod's claims that wait for their finalizer to
// go. The others have no use for a pod event; should the claim cache lag,
// the claim's own update queues it.
func (c *Controller) enqueueClaimsOf(pod *v1.Pod) {
	for i := range pod.Spec.Volumes {
		name := claimNameOf(pod, &pod.Spec.Volumes[i])
		if name == "" {
			continue
		}
		claim, err := c.claims.PersistentVolumeClaims(pod.Namespace).Get(name)
		if err != nil || claim.DeletionTimestamp == nil || !finalizer.Has(claim, Finalizer) {
			continue
		}
		c.loop.Add(claimKey(claim))
	}
}

// podOf unwraps a pod from an informer notification, tombstones included.
func podOf(obj interface{}) *v1.Pod {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	pod, _ := obj.(*v1.Pod)
	return pod
}
