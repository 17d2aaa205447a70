package library

import (
	"maps"
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

// withoutOwnFields is claim without its version, its managed fields and
// what the sidecar's protections write. It runs on every claim update, so
// it copies the claim's top level and only the lists and maps it drops
// from; the rest stays shared with the cached claim and is never written.
func withoutOwnFields(claim *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	c := *claim
	c.ResourceVersion = ""
	c.ManagedFields = nil
	c.Finalizers = without(claim.Finalizers, func(f string) bool { return slices.Contains(ownClaimFinalizers, f) })
	c.Annotations = withoutKeys(claim.Annotations, provisionstate.RequestRecords)
	c.Status.Conditions = without(claim.Status.Conditions, func(cond v1.PersistentVolumeClaimCondition) bool {
		return cond.Type == claimconditions.ConditionType
	})
	return &c
}

// without is a new list of the items of list that drop does not match;
// list itself when drop matches none. (Semantic equality takes an empty
// list for none.)
func without[T any](list []T, drop func(T) bool) []T {
	if !slices.ContainsFunc(list, drop) {
		return list
	}
	return slices.DeleteFunc(slices.Clone(list), drop)
}

// withoutKeys is a new map of m without keys; m itself when it holds none
// of them.
func withoutKeys(m map[string]string, keys []string) map[string]string {
	if !slices.ContainsFunc(keys, func(k string) bool { _, ok := m[k]; return ok }) {
		return m
	}
	kept := maps.Clone(m)
	for _, k := range keys {
		delete(kept, k)
	}
	return kept
}
