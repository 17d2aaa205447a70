package main

import (
	"maps"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/pvcprotection"
)

// resyncPeriod is upstream's. The provisioning library lowers it for its own
// handlers before the informers start.
const resyncPeriod = time.Hour

func newInformerFactory(client kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, resyncPeriod,
		informers.WithTransform(trimForCache))
}

// trimForCache keeps what the controllers read, and everything a write of
// a cached copy carries. Pods, watched only for PVC protection and the most
// numerous objects of a cluster, keep only what its rules need; claims and
// PVs keep only the phase of their status, and PVs no volume context.
// What claims and PVs repeat across objects they then share (see
// cache_sharing.go), which changes none of their content. The informer may
// transform an object twice; every step gives the same object again.
func trimForCache(obj any) (any, error) {
	switch o := obj.(type) {
	case *v1.Pod:
		return pvcprotection.TrimPod(obj)
	case *v1.PersistentVolumeClaim:
		trimClaimStatus(o)
		obj, err := dropManagedFields(obj)
		shareClaim(cacheValues, o)
		return obj, err
	case *v1.PersistentVolume:
		trimVolume(o)
		obj, err := stripUnreadMetadata(obj)
		shareVolume(cacheValues, o)
		return obj, err
	}
	return stripUnreadMetadata(obj)
}

// dropManagedFields drops managedFields, which nothing here reads and which
// are often the largest part of an object. It is the whole trim of the
// metadata of kinds written with an update of a cached copy (claims,
// VolumeSnapshots, CSIStorageCapacities): an update replaces the whole
// annotation map, so their copies must keep every annotation, kubectl's
// last-applied configuration included; an update without managedFields
// leaves the object's own as they are in the API.
func dropManagedFields(obj any) (any, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	if m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// stripUnreadMetadata also drops kubectl's last-applied configuration, for
// kinds never written from a cached copy (PVs are only patched, the rest
// only read): on claims and volumes it is often the largest annotation.
// The object gets a new map without it: its own may be shared already
// (a second pass of the transform), and a shared map is never written.
func stripUnreadMetadata(obj any) (any, error) {
	obj, _ = dropManagedFields(obj)
	if m, err := meta.Accessor(obj); err == nil {
		annotations := m.GetAnnotations()
		if _, ok := annotations[v1.LastAppliedConfigAnnotation]; ok {
			annotations = maps.Clone(annotations)
			delete(annotations, v1.LastAppliedConfigAnnotation)
			m.SetAnnotations(annotations)
		}
	}
	return obj, nil
}

// trimClaimStatus keeps the phase, the part of a claim's status the
// controllers here read (Bound or not), and the claim conditions
// controller's own condition (gate ClaimConditions), which it compares
// before it writes; capacity, access modes, the other conditions and
// resize state are the binder's and the resizer's. A claim is only ever
// written with an update of its main resource, which leaves its status as
// it is in the API, or with a patch of that one condition of its status,
// so the trimmed copy never erases anything.
func trimClaimStatus(claim *v1.PersistentVolumeClaim) {
	claim.Status = v1.PersistentVolumeClaimStatus{
		Phase:      claim.Status.Phase,
		Conditions: claimconditions.Owned(claim.Status.Conditions),
	}
}

// trimVolume drops what no controller here reads from a PV: the volume
// context (spec.csi.volumeAttributes, the driver's answer to CreateVolume,
// which is only ever written, into a new PV) and all of the status but the
// phase. PVs are only ever written with patches of their finalizers (the
// library's and PV protection's), never with an update of a cached copy,
// which would erase the volume context.
func trimVolume(pv *v1.PersistentVolume) {
	if pv.Spec.CSI != nil {
		pv.Spec.CSI.VolumeAttributes = nil
	}
	pv.Status = v1.PersistentVolumeStatus{Phase: pv.Status.Phase}
}
