package cleanup

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

// Event reasons, on the LocalVolume or LocalVolumeSet being deleted.
const (
	// ReasonBlockedByBoundVolume: a PV of the owner is bound to a claim.
	ReasonBlockedByBoundVolume = "DeletionBlockedByBoundVolume"
	// ReasonBlockedByRetainedVolume: a PV of the owner was released with
	// reclaim policy Retain (or Recycle) and waits for its data to be
	// saved.
	ReasonBlockedByRetainedVolume = "DeletionBlockedByRetainedVolume"
	// ReasonVolumeReleased: an unbound PV of the owner was deleted so
	// that no claim can bind it; its node agent cleans it up.
	ReasonVolumeReleased = "VolumeReleasedForDeletion"
	// ReasonVolumeAbandoned (Warning): a PV on a node that is gone, or no
	// longer selected, was deleted and let go without its node agent.
	ReasonVolumeAbandoned = "VolumeAbandonedOnGoneNode"
	// ReasonDeletionCompleted: no PV of the owner is left and its
	// finalizer was removed.
	ReasonDeletionCompleted = "DeletionCompleted"
)

// blockage is one PV blocking the deletion of its owner.
type blockage struct {
	pvUID   types.UID
	reason  string
	message string
	// short names the PV (and its claim) in the DeletionBlocked condition.
	short string
}

// blockedOwner is what was announced of one owner: the PVs blocking its
// deletion, by name. The UID tells the owner from a later one of its name.
//
// This is not a finalizer.Holds: a blockage is announced per blocking PV,
// as a Warning whose reason says what the PV's state asks of the user, and
// its end has no event (the DeletionBlocked condition turns False instead).
// Holds announces one Normal hold per object, and its release.
type blockedOwner struct {
	uid types.UID
	pvs map[string]blockage
}

func boundBlockage(pv *corev1.PersistentVolume) blockage {
	b := blockage{pvUID: pv.UID, reason: ReasonBlockedByBoundVolume, short: pv.Name}
	if ref := pv.Spec.ClaimRef; ref != nil && ref.Name != "" {
		claim := ref.Namespace + "/" + ref.Name
		b.message = fmt.Sprintf("Deletion blocked: PersistentVolume %s is bound to claim %s; delete claim %s to release it", pv.Name, claim, claim)
		b.short = fmt.Sprintf("%s (claim %s)", pv.Name, claim)
	} else {
		b.message = fmt.Sprintf("Deletion blocked: PersistentVolume %s is bound; delete its claim to release it", pv.Name)
	}
	return b
}

func retainedBlockage(pv *corev1.PersistentVolume) blockage {
	return blockage{
		pvUID:  pv.UID,
		reason: ReasonBlockedByRetainedVolume,
		message: fmt.Sprintf("Deletion blocked: PersistentVolume %s is %s with reclaim policy %s; back up the data you need from it, then delete the PersistentVolume",
			pv.Name, pv.Status.Phase, pv.Spec.PersistentVolumeReclaimPolicy),
		short: fmt.Sprintf("%s (%s, %s)", pv.Name, pv.Status.Phase, pv.Spec.PersistentVolumeReclaimPolicy),
	}
}

// announceBlocked records that the owner key (object ref) is blocked by
// blocks, by PV name, and announces each (PV, reason) not announced while
// it was last blocked. An empty blocks ends the blockage.
func (c *Controller) announceBlocked(key OwnerKey, ref *corev1.ObjectReference, blocks map[string]blockage) {
	var fresh []blockage
	c.mu.Lock()
	old, had := c.blocked[key]
	if had && old.uid != ref.UID {
		old, had = blockedOwner{}, false
	}
	// In PV name order, so the events read the same on every run.
	for _, name := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[name]
		if prev, ok := old.pvs[name]; !ok || prev.pvUID != b.pvUID || prev.reason != b.reason {
			fresh = append(fresh, b)
		}
	}
	if len(blocks) == 0 {
		delete(c.blocked, key)
	} else {
		c.blocked[key] = blockedOwner{uid: ref.UID, pvs: maps.Clone(blocks)}
	}
	// Set under the lock so concurrent workers cannot store counts out of
	// order.
	c.metrics.BlockedDeletions.Set(float64(len(c.blocked)))
	c.mu.Unlock()
	// Warning: the deletion the user asked for waits on them.
	for _, b := range fresh {
		c.recorder.Event(ref, corev1.EventTypeWarning, b.reason, b.message)
	}
}

// forgetOwner drops all memory of the owner key: its deletion is done, it
// is gone, or it is not being deleted.
func (c *Controller) forgetOwner(key OwnerKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.blocked[key]; ok {
		delete(c.blocked, key)
		c.metrics.BlockedDeletions.Set(float64(len(c.blocked)))
	}
	for uk := range c.unreachable {
		if uk.owner == key {
			delete(c.unreachable, uk)
		}
	}
}

// isBlocked tells whether the owner key is remembered as blocked.
func (c *Controller) isBlocked(key OwnerKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.blocked[key]
	return ok
}

// Messages of the other events.
func releasedMessage(pv *corev1.PersistentVolume, node string) string {
	where := "its node agent"
	if node != "" {
		where = "the node agent on " + node
	}
	return fmt.Sprintf("Deleted PersistentVolume %s, which no claim is bound to, so that no claim can bind it; %s removes its symlink and finalizer", pv.Name, where)
}

func abandonedMessage(pv *corev1.PersistentVolume, r reach) string {
	return fmt.Sprintf("PersistentVolume %s is on node %s, which %s, so no node agent will clean it up: it was deleted and its %s finalizer removed. "+
		"Its device and symlink on node %s were left untouched; clean them up by hand if the node comes back",
		pv.Name, r.node, r.why, local.SymlinkDeleterFinalizer, r.node)
}

func completedMessage(kind string) string {
	return fmt.Sprintf("No PersistentVolume of this %s is left; removed finalizer %s, the deletion continues", kind, local.LocalVolumeProtectionFinalizer)
}
