package pvcprotection

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// Event reasons on a claim whose deletion this controller holds.
const (
	ReasonDeletionHeld     = "DeletionHeldByPod"
	ReasonDeletionReleased = "DeletionReleased"
)

// msgReleased is the message of the DeletionReleased event.
const msgReleased = "No pod uses the claim any more; deletion continues"

// claimState is what this process remembers about a claim being deleted,
// besides its hold (c.holds). It is only memory: after a restart a claim is
// simply seen afresh.
type claimState struct {
	uid types.UID
	// seen is when this process first saw the claim being deleted; a
	// freshness check must start after it.
	seen moment
	// releasedFrom is the version of the claim this process removed the
	// finalizer from, until the cache shows a newer one: a sync of that
	// stale copy must not start another freshness check and write.
	releasedFrom string
}

// claimKey is the key of claim in the queue and in this memory.
func claimKey(claim *v1.PersistentVolumeClaim) cache.ObjectName {
	return cache.MetaObjectToName(claim)
}

// seenDeleting returns when this process first saw claim being deleted.
func (c *Controller) seenDeleting(claim *v1.PersistentVolumeClaim) moment {
	key := claimKey(claim)
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[key]
	if st == nil || st.uid != claim.UID || st.releasedFrom != "" {
		st = &claimState{uid: claim.UID, seen: c.stamps.now()}
		c.states[key] = st
		// A hold left from an earlier claim of the same name is over.
		if _, held := c.holds.HeldBy(key, claim.UID); !held {
			c.holds.Forget(key)
		}
	}
	return st.seen
}

// hold records that pods block claim, with an event when a hold starts or
// when the pod the last event named no longer blocks. blockers is sorted
// and not empty.
func (c *Controller) hold(claim *v1.PersistentVolumeClaim, blockers []*v1.Pod) {
	key := claimKey(claim)
	if by, held := c.holds.HeldBy(key, claim.UID); held && blockedBy(blockers, by) {
		return
	}
	msg := "Deletion postponed: the claim is used by pod " + claim.Namespace + "/" + blockers[0].Name
	if len(blockers) > 1 {
		msg += fmt.Sprintf(" and %d more", len(blockers)-1)
	}
	c.holds.Hold(key, claim.UID, claim, blockers[0].Name, msg)
}

func blockedBy(blockers []*v1.Pod, pod string) bool {
	return slices.ContainsFunc(blockers, func(p *v1.Pod) bool { return p.Name == pod })
}

// released forgets claim after its finalizer went, with an event if it was
// held. removedFrom is the claim version this process removed it from, ""
// if someone else did. heldBefore is whether the caller saw it held before
// its own write: the claim's deletion may reach the informer, and forget
// the hold, before that write returns.
func (c *Controller) released(claim *v1.PersistentVolumeClaim, removedFrom string, heldBefore bool) {
	key := claimKey(claim)
	c.mu.Lock()
	delete(c.states, key)
	if removedFrom != "" {
		c.states[key] = &claimState{uid: claim.UID, releasedFrom: removedFrom}
	}
	c.mu.Unlock()
	c.holds.Release(key, claim.UID, claim, msgReleased, heldBefore)
}

// isHeld tells whether this very claim (not an earlier one of its name) is
// held.
func (c *Controller) isHeld(claim *v1.PersistentVolumeClaim) bool {
	_, held := c.holds.HeldBy(claimKey(claim), claim.UID)
	return held
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

// forget drops what this process remembers about a claim, its hold
// included, without an event: the claim is gone or no longer concerned.
func (c *Controller) forget(key cache.ObjectName) {
	c.mu.Lock()
	delete(c.states, key)
	c.mu.Unlock()
	c.holds.Forget(key)
}
