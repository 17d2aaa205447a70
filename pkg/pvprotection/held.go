package pvprotection

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Event reasons on a PV whose deletion is held.
const (
	ReasonDeletionHeld     = "DeletionHeldByClaim"
	ReasonDeletionReleased = "DeletionReleased"
)

// holder is what a held PV was reported as held by. The UID tells a PV from
// a later one of the same name.
type holder struct {
	uid   types.UID
	claim string
}

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
	h := holder{uid: pv.UID, claim: claimKey(pv)}
	c.heldMu.Lock()
	if c.held[pv.Name] == h {
		c.heldMu.Unlock()
		return
	}
	c.held[pv.Name] = h
	// Set under the lock so concurrent workers cannot store counts out of
	// order.
	c.metrics.HeldVolumes.Set(float64(len(c.held)))
	c.heldMu.Unlock()
	if h.claim == "" {
		c.recorder.Event(pv, v1.EventTypeNormal, ReasonDeletionHeld, "Deletion postponed: the volume is bound to a claim")
		return
	}
	c.recorder.Eventf(pv, v1.EventTypeNormal, ReasonDeletionHeld, "Deletion postponed: the volume is bound to claim %s", h.claim)
}

// Messages of the DeletionReleased event.
const (
	msgUnbound          = "Deletion may proceed: the volume is no longer bound"
	msgRemovedElsewhere = "Deletion may proceed: the " + Finalizer + " finalizer was removed by someone else"
)

// release ends the hold of pv, announcing it with message if pv was held.
// heldBefore is whether the caller saw it held before its own write: the
// PV's deletion may reach the informer, and forget the hold, before that
// write returns.
func (c *Controller) release(pv *v1.PersistentVolume, message string, heldBefore bool) {
	c.heldMu.Lock()
	h, was := c.held[pv.Name]
	if was {
		delete(c.held, pv.Name)
		c.metrics.HeldVolumes.Set(float64(len(c.held)))
	}
	c.heldMu.Unlock()
	if (was && h.uid == pv.UID) || heldBefore {
		c.recorder.Event(pv, v1.EventTypeNormal, ReasonDeletionReleased, message)
	}
}

// forget drops the hold of a PV that is gone or no longer concerned,
// without an event: there is nothing left to tell it to.
func (c *Controller) forget(name string) {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	if _, ok := c.held[name]; ok {
		delete(c.held, name)
		c.metrics.HeldVolumes.Set(float64(len(c.held)))
	}
}

// heldAs tells whether this very PV (not an earlier one of its name) is
// held.
func (c *Controller) heldAs(pv *v1.PersistentVolume) bool {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	h, ok := c.held[pv.Name]
	return ok && h.uid == pv.UID
}

func (c *Controller) isHeld(name string) bool {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	_, ok := c.held[name]
	return ok
}
