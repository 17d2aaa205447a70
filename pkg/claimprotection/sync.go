package claimprotection

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// Messages of the hold and release events.
const (
	msgHeld     = "Deletion waits: a CreateVolume for this claim may still be running; its volume will be deleted first"
	msgReleased = "No CreateVolume for this claim can be running any more; deletion continues"
)

// sync removes the finalizers of claim key that protect nothing any more, in
// one write pinned to the version it decided on. It reads the caches and
// this process's record of CreateVolume calls, so it is safe to run again
// after a crash at any point.
func (c *Controller) sync(ctx context.Context, key cache.ObjectName) (reconcile.Result, error) {
	claim, err := c.claims.PersistentVolumeClaims(key.Namespace).Get(key.Name)
	if err != nil {
		return reconcile.Done, reconcile.IgnoreNotFound(err)
	}
	logger := klog.FromContext(ctx)

	var remove []string
	if finalizer.Has(claim, provisionstate.CloningProtectionFinalizer) {
		clones, err := c.claimIndex.ByIndex(pendingCloneSourceIndex, key.String())
		if err != nil {
			return reconcile.Done, err
		}
		if len(clones) == 0 {
			remove = append(remove, provisionstate.CloningProtectionFinalizer)
		} else {
			logger.V(4).Info("Source claim still has pending clones", "pending", len(clones))
		}
	}
	var syncErr error
	releasing := false
	// Asked first, so that a newer version without the finalizer, which is
	// queued for this alone, forgets the release too.
	alreadyReleased := c.alreadyReleased(claim)
	if finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer) && !alreadyReleased {
		done, err := c.provisioningOver(ctx, claim)
		if done {
			remove = append(remove, provisionstate.ProvisioningProtectionFinalizer)
			releasing = true
		}
		syncErr = err
	}
	c.reportForbidden(claim, syncErr)
	if len(remove) == 0 {
		return reconcile.Done, syncErr
	}

	wasHeld := c.holds.IsHeld(claim.UID)
	change := finalizer.Change{Remove: remove}
	if releasing {
		// What the call was made with is needed only while it may be
		// replayed.
		change.RemoveAnnotations = slices.Clone(provisionstate.RequestRecords)
	}
	wrote, err := finalizer.Write(ctx, finalizer.PersistentVolumeClaims(c.client), claim, change)
	if apierrors.IsNotFound(err) {
		return reconcile.Done, syncErr
	}
	if err != nil {
		c.reportForbidden(claim, err)
		return reconcile.Done, err
	}
	if !wrote {
		return reconcile.Done, syncErr
	}
	logger.V(2).Info("Removed finalizers", "finalizers", remove)
	if releasing {
		c.markReleased(claim)
		// Once more, so that a sync reads the version the write made and
		// forgets the release: its event may have come before the mark.
		c.loop.Add(key)
		c.metrics.FinalizersRemoved.Inc()
		c.holds.Release(claim.UID, claim.UID, claim, msgReleased, wasHeld)
	}
	return reconcile.Done, syncErr
}

// provisioningOver tells whether no CreateVolume for claim can be running
// any more, so the provisioning-protection finalizer may go. For a claim
// being deleted whose fate this process does not know, it has the
// provisioner replay the call and delete any volume made for the claim.
func (c *Controller) provisioningOver(ctx context.Context, claim *v1.PersistentVolumeClaim) (bool, error) {
	hasVolume := c.hasVolume(claim)
	switch {
	case claim.Status.Phase == v1.ClaimBound:
		// The PV owns the volume now; its reclaim policy decides its fate.
		return true, nil
	case hasVolume && claim.DeletionTimestamp != nil:
		return true, nil
	case hasVolume:
		// Wait for the binder: writing the claim while it binds it would
		// make the binder's writes conflict and retry. The claim update
		// that marks it Bound requeues it.
		return false, nil
	}
	switch c.calls.State(claim.UID) {
	case provisionstate.Calling, provisionstate.Created:
		// A call is running or its PV is being saved; its end requeues.
		c.setHeld(claim)
		return false, nil
	case provisionstate.Final:
		if claim.DeletionTimestamp != nil {
			return true, nil
		}
	}
	if !c.protect {
		// With the gate off nothing in this process is running for the
		// claim: a finalizer left from before must not hold it.
		return true, nil
	}
	if claim.DeletionTimestamp == nil {
		// Harmless on a live claim, and provisioning still needs it.
		return false, nil
	}
	if node := provisionstate.ProvisioningNode(claim); c.nodeName != "" && node != c.nodeName {
		// Only that node's driver can hold the volume: its sidecar,
		// running or restarted, replays the call there. A claim with no
		// node recorded (its finalizer put on by a central sidecar before
		// a switch to node deployment) is left alone by every node: no
		// sidecar knows which driver to ask, and releasing it could leak.
		klog.FromContext(ctx).V(4).Info("Claim provisioned on another node, left to its sidecar", "node", node)
		return false, nil
	}
	c.setHeld(claim)
	return c.replayer.ReplayAndDelete(ctx, claim)
}

// setHeld announces the hold of a claim being deleted; a live claim waiting
// for its call is not held.
func (c *Controller) setHeld(claim *v1.PersistentVolumeClaim) {
	if claim.DeletionTimestamp == nil {
		c.holds.Forget(claim.UID)
		return
	}
	c.holds.Hold(claim.UID, claim.UID, claim, "", msgHeld)
}

// hasVolume tells whether the claim's PV exists.
func (c *Controller) hasVolume(claim *v1.PersistentVolumeClaim) bool {
	if claim.Spec.VolumeName != "" {
		return true
	}
	name, err := c.replayer.PVName(claim)
	if err != nil {
		return false
	}
	pv, err := c.volumes.Get(name)
	if err != nil {
		return false
	}
	return pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID == claim.UID
}

// markReleased remembers the version of a claim whose finalizer was just
// removed: a sync of that stale copy, which the cache may still hold, must
// not release it again, least of all by asking the driver once more.
func (c *Controller) markReleased(claim *v1.PersistentVolumeClaim) {
	c.releasedMu.Lock()
	defer c.releasedMu.Unlock()
	c.released[claim.UID] = claim.ResourceVersion
}

// releasePending tells whether this controller released the claim of uid
// and no sync has read a newer version since: its next version is queued so
// that one does, and the record goes.
func (c *Controller) releasePending(uid types.UID) bool {
	c.releasedMu.Lock()
	defer c.releasedMu.Unlock()
	_, ok := c.released[uid]
	return ok
}

// alreadyReleased tells whether claim is the copy this controller released.
// A sync that reads another version has seen the cache move on and forgets
// the release. Only a sync forgets it: an event handler doing so raced a
// sync that had read the stale copy just before, which then released the
// claim again. The queue runs one sync of a claim at a time, and the cache
// only moves forward, so no later sync reads the released copy again once
// one has read a newer one. The deletion of the claim forgets it too.
func (c *Controller) alreadyReleased(claim *v1.PersistentVolumeClaim) bool {
	c.releasedMu.Lock()
	defer c.releasedMu.Unlock()
	rv, ok := c.released[claim.UID]
	if ok && rv != claim.ResourceVersion {
		delete(c.released, claim.UID)
	}
	return ok && rv == claim.ResourceVersion
}

// reportForbidden tells on the claim that RBAC refused a write (the error
// names the missing rule): a log line alone goes unseen by whoever deploys
// the sidecar with a ClusterRole that lacks it.
func (c *Controller) reportForbidden(claim *v1.PersistentVolumeClaim, err error) {
	if apierrors.IsForbidden(err) {
		c.recorder.Event(claim, v1.EventTypeWarning, ReasonFinalizerWriteForbidden, err.Error())
	}
}
