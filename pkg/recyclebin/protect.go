package recyclebin

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// A kept PV says Retain, so that no provisioner that does not know the bin
// deletes its volume: upstream external-provisioner, kube-controller-manager
// and this sidecar with retention off all leave a Released Retain PV alone.
// The policy it had is recorded beside it and given back in one write when
// the bin lets the volume go. The bin's finalizer keeps a kept PV deleted
// meanwhile from vanishing while its volume stays in the backend.

// reclaimPolicy is the policy that decides what becomes of pv's volume: the
// one the bin recorded while it keeps the volume, else the PV's own.
// A recorded value that names no policy keeps the volume: bad input must not
// delete data.
func reclaimPolicy(pv *v1.PersistentVolume) v1.PersistentVolumeReclaimPolicy {
	recorded, ok := pv.Annotations[AnnReclaimPolicy]
	if !ok {
		return pv.Spec.PersistentVolumeReclaimPolicy
	}
	switch policy := v1.PersistentVolumeReclaimPolicy(recorded); policy {
	case v1.PersistentVolumeReclaimDelete, v1.PersistentVolumeReclaimRetain, v1.PersistentVolumeReclaimRecycle:
		return policy
	}
	return v1.PersistentVolumeReclaimRetain
}

// protected reports whether pv carries the whole of the bin's protection.
func protected(pv *v1.PersistentVolume) bool {
	_, recorded := pv.Annotations[AnnReclaimPolicy]
	return recorded && pv.Spec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimRetain &&
		slices.Contains(pv.Finalizers, FinalizerKept)
}

// carriesProtection reports whether pv carries any of it.
func carriesProtection(pv *v1.PersistentVolume) bool {
	_, recorded := pv.Annotations[AnnReclaimPolicy]
	return recorded || slices.Contains(pv.Finalizers, FinalizerKept)
}

// protect is the change that makes pv's volume safe from any deleter:
// reclaim policy Retain, the policy it had recorded, and the finalizer. A
// PV being deleted gets no new finalizer (the API server refuses one). The
// provisioning library's finalizer, libraryFinalizer if set, goes in the
// same write: the library removes it from a PV that says Retain anyway, and
// the bin's stands in for it until the policy is given back.
func protect(pv *v1.PersistentVolume, libraryFinalizer string) finalizer.Change {
	c := finalizer.Change{SetAnnotations: map[string]string{AnnReclaimPolicy: string(reclaimPolicy(pv))}}
	if pv.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimRetain {
		c.Spec = map[string]any{"persistentVolumeReclaimPolicy": v1.PersistentVolumeReclaimRetain}
	}
	if pv.DeletionTimestamp == nil {
		c.Add = []string{FinalizerKept}
		if libraryFinalizer != "" {
			c.Remove = []string{libraryFinalizer}
		}
	}
	return c
}

// handBack is the change that gives pv back to its recorded reclaim policy
// and drops the bin's protection, so that the deletion path (or, for a
// bound PV, the claim's) takes it from there. libraryFinalizer, if set, is
// the provisioning library's PV finalizer, which the library removed while
// the PV said Retain: a PV given back to Delete gets it again, so that its
// deletion waits for its volume's as any other's does.
func handBack(pv *v1.PersistentVolume, libraryFinalizer string) finalizer.Change {
	policy := reclaimPolicy(pv)
	c := finalizer.Change{Remove: []string{FinalizerKept}, RemoveAnnotations: []string{AnnReclaimPolicy}}
	if pv.Spec.PersistentVolumeReclaimPolicy != policy {
		c.Spec = map[string]any{"persistentVolumeReclaimPolicy": policy}
	}
	if libraryFinalizer != "" && policy == v1.PersistentVolumeReclaimDelete && pv.DeletionTimestamp == nil {
		c.Add = []string{libraryFinalizer}
	}
	return c
}

// released is the change that lets a PV being deleted go once the bin has
// deleted its volume: the bin's finalizer and recorded policy, and the
// library's finalizer, whose volume is gone too.
func released(libraryFinalizer string) finalizer.Change {
	c := finalizer.Change{Remove: []string{FinalizerKept}, RemoveAnnotations: []string{AnnReclaimPolicy}}
	if libraryFinalizer != "" {
		c.Remove = append(c.Remove, libraryFinalizer)
	}
	return c
}
