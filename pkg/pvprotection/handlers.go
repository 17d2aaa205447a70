package pvprotection

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// inScope tells whether the controller may write pv.
func (c *Controller) inScope(pv *v1.PersistentVolume) bool {
	return c.allVolumes || c.driver.ServesVolume(pv)
}

// needsSync tells whether pv's finalizer is not what it should be at rest:
// missing on a live PV, or present on one being deleted.
func (c *Controller) needsSync(pv *v1.PersistentVolume) bool {
	if !c.inScope(pv) {
		return false
	}
	return finalizer.Has(pv, Finalizer) == (pv.DeletionTimestamp != nil)
}

func (c *Controller) onAdd(obj interface{}) {
	if pv, ok := obj.(*v1.PersistentVolume); ok && c.needsSync(pv) {
		c.loop.Add(pv.Name)
	}
}

func (c *Controller) onUpdate(oldObj, newObj interface{}) {
	pv, ok := newObj.(*v1.PersistentVolume)
	if !ok {
		return
	}
	old, _ := oldObj.(*v1.PersistentVolume)
	switch {
	case c.needsSync(pv):
	case c.inScope(pv) && pv.DeletionTimestamp != nil && old != nil && old.Status.Phase != pv.Status.Phase:
		// A deleting PV leaving Bound is the moment it may go.
	case c.holds.IsHeld(pv.Name):
		// Someone else, kube-controller-manager say, removed the finalizer:
		// the hold must still end.
	default:
		return
	}
	c.loop.Add(pv.Name)
}

// onDelete lets sync forget a held PV that is gone.
func (c *Controller) onDelete(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if pv, ok := obj.(*v1.PersistentVolume); ok && c.holds.IsHeld(pv.Name) {
		c.loop.Add(pv.Name)
	}
}
