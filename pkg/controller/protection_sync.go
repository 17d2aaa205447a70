package controller

import (
	"context"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Event reasons on a claim whose deletion provisioning protection holds.
const (
	ReasonDeletionHeld     = "DeletionHeldForProvisioning"
	ReasonDeletionReleased = "DeletionReleasedByProvisioning"
	ReasonAbandonedVolume  = "AbandonedVolumeDeleted"
)

// sync removes the finalizers of claim key that protect nothing any more, in
// one patch. It reads the caches and this process's record of CreateVolume
// calls, so it is safe to run again after a crash at any point.
func (c *ProtectionController) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	claim, err := c.claims.PersistentVolumeClaims(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := klog.FromContext(ctx)

	var remove []string
	if hasFinalizer(claim, CloningProtectionFinalizer) {
		clones, err := c.claimIndex.ByIndex(pendingCloneSourceIndex, key)
		if err != nil {
			return err
		}
		if len(clones) == 0 {
			remove = append(remove, CloningProtectionFinalizer)
		} else {
			logger.V(4).Info("Source claim still has pending clones", "pending", len(clones))
		}
	}
	var syncErr error
	if hasFinalizer(claim, ProvisioningProtectionFinalizer) && !c.alreadyReleased(claim) {
		done, err := c.provisioningOver(ctx, claim)
		if done {
			remove = append(remove, ProvisioningProtectionFinalizer)
		}
		syncErr = err
	}
	if len(remove) == 0 {
		return syncErr
	}

	if err := patchClaimFinalizers(ctx, c.client, namespace, name, nil, remove); err != nil {
		if apierrors.IsNotFound(err) {
			return syncErr
		}
		return err
	}
	logger.V(2).Info("Removed finalizers", "finalizers", remove)
	c.markReleased(claim)
	for _, f := range remove {
		if f == ProvisioningProtectionFinalizer {
			c.provisioner.metrics.FinalizersRemoved.Inc()
			c.setHeld(claim, false)
		}
	}
	return syncErr
}

// provisioningOver tells whether no CreateVolume for claim can be running
// any more, so the provisioning-protection finalizer may go. For a claim
// being deleted whose fate this process does not know, it asks the driver,
// deleting any volume that was made for it.
func (c *ProtectionController) provisioningOver(ctx context.Context, claim *v1.PersistentVolumeClaim) (bool, error) {
	hasVolume := c.hasVolume(claim)
	switch {
	case claim.Status.Phase == v1.ClaimBound:
		// The PV owns the volume now; its reclaim policy decides its fate.
		return true, nil
	case hasVolume && claim.DeletionTimestamp != nil:
		return true, nil
	case hasVolume:
		// Wait for the binder: patching the claim while it binds it would
		// make the binder's writes conflict and retry. The claim update
		// that marks it Bound requeues it.
		return false, nil
	}
	p := c.provisioner
	switch p.calls.state(claim.UID) {
	case stateCalling, stateCreated:
		// A call is running or its PV is being saved; its end requeues.
		c.setHeld(claim, claim.DeletionTimestamp != nil)
		return false, nil
	case stateFinal:
		if claim.DeletionTimestamp != nil {
			return true, nil
		}
	}
	if !p.opts.Features.ProvisioningProtection {
		// With the gate off nothing in this process is running for the
		// claim: a finalizer left from before must not hold it.
		return true, nil
	}
	if claim.DeletionTimestamp == nil {
		// Harmless on a live claim, and provisioning still needs it.
		return false, nil
	}
	c.setHeld(claim, true)
	return p.resolveAbandoned(ctx, claim)
}

// hasVolume tells whether the claim's PV exists.
func (c *ProtectionController) hasVolume(claim *v1.PersistentVolumeClaim) bool {
	if claim.Spec.VolumeName != "" {
		return true
	}
	name, err := c.provisioner.volumeNameFor(claim)
	if err != nil {
		return false
	}
	pv, err := c.volumes.Get(name)
	if err != nil {
		return false
	}
	return pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID == claim.UID
}

// setHeld records whether a claim's deletion is held, with an event at the
// start and at the end of a hold.
func (c *ProtectionController) setHeld(claim *v1.PersistentVolumeClaim, held bool) {
	c.heldMu.Lock()
	was := c.held[claim.UID]
	if held {
		c.held[claim.UID] = true
	} else {
		delete(c.held, claim.UID)
	}
	count := len(c.held)
	c.heldMu.Unlock()
	c.provisioner.metrics.HeldClaims.Set(float64(count))
	switch {
	case held && !was:
		c.recorder.Event(claim, v1.EventTypeNormal, ReasonDeletionHeld,
			"Deletion waits: a CreateVolume for this claim may still be running; its volume will be deleted first")
	case !held && was:
		c.recorder.Event(claim, v1.EventTypeNormal, ReasonDeletionReleased,
			"No CreateVolume for this claim can be running any more; deletion continues")
	}
}

// markReleased remembers the version of a claim whose finalizer was just
// removed, until the cache shows the change: a sync of that stale copy must
// not release it again, least of all by asking the driver once more.
func (c *ProtectionController) markReleased(claim *v1.PersistentVolumeClaim) {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	c.released[claim.UID] = claim.ResourceVersion
}

func (c *ProtectionController) alreadyReleased(claim *v1.PersistentVolumeClaim) bool {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	rv, ok := c.released[claim.UID]
	return ok && rv == claim.ResourceVersion
}

// forgetReleased drops the memory once the cache has moved past it.
func (c *ProtectionController) forgetReleased(claim *v1.PersistentVolumeClaim) {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	if rv, ok := c.released[claim.UID]; ok && rv != claim.ResourceVersion {
		delete(c.released, claim.UID)
	}
}
