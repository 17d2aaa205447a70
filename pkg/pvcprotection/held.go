package pvcprotection

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Event reasons on a claim whose deletion this controller holds.
const (
	ReasonDeletionHeld     = "DeletionHeldByPod"
	ReasonDeletionReleased = "DeletionReleased"
)

// claimState is what this process remembers about a claim being deleted.
// It is only memory: after a restart a claim is simply seen afresh.
type claimState struct {
	uid types.UID
	// seen is when this process first saw the claim being deleted; a
	// freshness check must start after it.
	seen moment
	// heldBy is the name of the pod the last hold event named (pods that
	// block a claim are in its namespace); "" when not held.
	heldBy string
	// releasedFrom is the version of the claim this process removed the
	// finalizer from, until the cache shows a newer one: a sync of that
	// stale copy must not start another freshness check and write.
	releasedFrom string
}

// seenDeleting returns when this process first saw claim being deleted.
func (c *Controller) seenDeleting(claim *v1.PersistentVolumeClaim) moment {
	key := claimKey(claim)
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[key]
	if st == nil || st.uid != claim.UID || st.releasedFrom != "" {
		st = c.startLocked(key, claim)
	}
	return st.seen
}

// startLocked begins what this process remembers of claim's deletion,
// replacing anything left from an earlier claim of the same name.
func (c *Controller) startLocked(key string, claim *v1.PersistentVolumeClaim) *claimState {
	if old := c.states[key]; old != nil && old.heldBy != "" {
		c.heldCount--
		c.metrics.HeldClaims.Set(float64(c.heldCount))
	}
	st := &claimState{uid: claim.UID, seen: c.stamps.now()}
	c.states[key] = st
	return st
}

// hold records that pods block claim, with an event when a hold starts or
// when the pod the last event named no longer blocks. blockers is sorted
// and not empty.
func (c *Controller) hold(claim *v1.PersistentVolumeClaim, blockers []*v1.Pod) {
	key := claimKey(claim)
	c.mu.Lock()
	st := c.states[key]
	if st == nil || st.uid != claim.UID {
		// seenDeleting runs first; this only guards a claim replaced
		// meanwhile.
		st = c.startLocked(key, claim)
	}
	if st.heldBy != "" && blockedBy(blockers, st.heldBy) {
		c.mu.Unlock()
		return
	}
	if st.heldBy == "" {
		c.heldCount++
	}
	st.heldBy = blockers[0].Name
	c.metrics.HeldClaims.Set(float64(c.heldCount))
	c.mu.Unlock()

	msg := "Deletion postponed: the claim is used by pod " + claim.Namespace + "/" + blockers[0].Name
	if len(blockers) > 1 {
		msg += fmt.Sprintf(" and %d more", len(blockers)-1)
	}
	c.recorder.Event(claim, v1.EventTypeNormal, ReasonDeletionHeld, msg)
}

func blockedBy(blockers []*v1.Pod, pod string) bool {
	for _, p := range blockers {
		if p.Name == pod {
			return true
		}
	}
	return false
}

// released forgets claim after its finalizer went, with an event if it was
// held. removedFrom is the claim version this process removed it from, ""
// if someone else did. heldBefore is whether the caller saw it held before
// its own write: the claim's deletion may reach the informer, and forget
// the hold, before that write returns.
func (c *Controller) released(claim *v1.PersistentVolumeClaim, removedFrom string, heldBefore bool) {
	key := claimKey(claim)
	wasHeld := c.forget(key) || heldBefore
	if removedFrom != "" {
		c.mu.Lock()
		c.states[key] = &claimState{uid: claim.UID, releasedFrom: removedFrom}
		c.mu.Unlock()
	}
	if wasHeld {
		c.recorder.Event(claim, v1.EventTypeNormal, ReasonDeletionReleased,
			"No pod uses the claim any more; deletion continues")
	}
}

// isHeld tells whether this very claim (not an earlier one of its name) is
// held.
func (c *Controller) isHeld(claim *v1.PersistentVolumeClaim) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[claimKey(claim)]
	return st != nil && st.uid == claim.UID && st.heldBy != ""
}

// alreadyReleased tells whether claim is the very version this process
// removed the finalizer from.
func (c *Controller) alreadyReleased(claim *v1.PersistentVolumeClaim) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[claimKey(claim)]
	return st != nil && st.uid == claim.UID && st.releasedFrom != "" && st.releasedFrom == claim.ResourceVersion
}

// dropStaleRelease forgets a release once the cache has moved past it.
func (c *Controller) dropStaleRelease(claim *v1.PersistentVolumeClaim) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := claimKey(claim)
	if st := c.states[key]; st != nil && st.releasedFrom != "" && (st.uid != claim.UID || st.releasedFrom != claim.ResourceVersion) {
		delete(c.states, key)
	}
}

// forget drops what this process remembers about a claim and reports
// whether it was held.
func (c *Controller) forget(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.states[key]
	if !ok {
		return false
	}
	delete(c.states, key)
	wasHeld := st.heldBy != ""
	if wasHeld {
		c.heldCount--
		c.metrics.HeldClaims.Set(float64(c.heldCount))
	}
	return wasHeld
}

func claimKey(claim *v1.PersistentVolumeClaim) string {
	return claim.Namespace + "/" + claim.Name
}
