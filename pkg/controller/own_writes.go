package controller

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// ownClaimFinalizers are the claim finalizers the sidecar's protections
// add and remove.
var ownClaimFinalizers = []string{
	provisionstate.ProvisioningProtectionFinalizer,
	provisionstate.CloningProtectionFinalizer,
}

// withoutOwnWrites hands the library every claim event but the updates
// that only the sidecar's own protection writes made: a finalizer of
// ownClaimFinalizers, the request records, the claim condition. Upstream
// makes none of these writes, so its library never sees them; passed on,
// the write of the finalizer before a CreateVolume that then fails would
// requeue the claim at once, past the library's back-off, and send a
// second CreateVolume to a backend that just refused one.
type withoutOwnWrites struct {
	cache.ResourceEventHandler
}

func (h withoutOwnWrites) OnUpdate(oldObj, newObj any) {
	old, okOld := oldObj.(*v1.PersistentVolumeClaim)
	cur, okNew := newObj.(*v1.PersistentVolumeClaim)
	if okOld && okNew && onlyOwnWrites(old, cur) {
		return
	}
	h.ResourceEventHandler.OnUpdate(oldObj, newObj)
}

// onlyOwnWrites tells whether cur differs from old, a different version
// of the claim, in nothing but what the sidecar's protections write. A
// resync (the same version) is never one: the library retries by it.
func onlyOwnWrites(old, cur *v1.PersistentVolumeClaim) bool {
	if old.ResourceVersion == cur.ResourceVersion || old.UID != cur.UID {
		return false
	}
	return equality.Semantic.DeepEqual(withoutOwnFields(old), withoutOwnFields(cur))
}

// withoutOwnFields is a copy of claim without its version, its managed
// fields and what the sidecar's protections write.
func withoutOwnFields(claim *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	c := claim.DeepCopy()
	c.ResourceVersion = ""
	c.ManagedFields = nil
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return slices.Contains(ownClaimFinalizers, f) })
	if len(c.Finalizers) == 0 {
		c.Finalizers = nil
	}
	for _, key := range provisionstate.RequestRecords {
		delete(c.Annotations, key)
	}
	if len(c.Annotations) == 0 {
		c.Annotations = nil
	}
	c.Status.Conditions = slices.DeleteFunc(c.Status.Conditions, func(cond v1.PersistentVolumeClaimCondition) bool {
		return cond.Type == claimconditions.ConditionType
	})
	if len(c.Status.Conditions) == 0 {
		c.Status.Conditions = nil
	}
	return c
}
