package pvprotection

import (
	v1 "k8s.io/api/core/v1"
)

// Event reasons on a PV whose deletion is held.
const (
	ReasonDeletionHeld     = "DeletionHeldByClaim"
	ReasonDeletionReleased = "DeletionReleased"
)

// Messages of the DeletionReleased event.
const (
	msgUnbound          = "Deletion may proceed: the volume is no longer bound"
	msgRemovedElsewhere = "Deletion may proceed: the " + Finalizer + " finalizer was removed by someone else"
)

// claimKey names the claim pv is bound to, as namespace/name.
func claimKey(pv *v1.PersistentVolume) string {
	ref := pv.Spec.ClaimRef
	if ref == nil {
		return ""
	}
	return ref.Namespace + "/" + ref.Name
}

// hold records that pv's deletion is held by its claim and announces it,
// unless it was already announced for that claim.
func (c *Controller) hold(pv *v1.PersistentVolume) {
	claim := claimKey(pv)
	msg := "Deletion postponed: the volume is bound to claim " + claim
	if claim == "" {
		msg = "Deletion postponed: the volume is bound to a claim"
	}
	c.holds.Hold(pv.Name, pv.UID, pv, claim, msg)
}

// release ends the hold of pv, announcing it with message if pv was held.
// heldBefore is whether the caller saw it held before its own write: the
// PV's deletion may reach the informer, and forget the hold, before that
// write returns.
func (c *Controller) release(pv *v1.PersistentVolume, message string, heldBefore bool) {
	c.holds.Release(pv.Name, pv.UID, pv, message, heldBefore)
}

// heldAs tells whether this very PV (not an earlier one of its name) is
// held.
func (c *Controller) heldAs(pv *v1.PersistentVolume) bool {
	_, held := c.holds.HeldBy(pv.Name, pv.UID)
	return held
}
