package testutil

import (
	"maps"
	"slices"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// NewClaim is a claim of 1Gi, ReadWriteOnce, of no class, in no phase.
func NewClaim(namespace, name string, opts ...ClaimOption) *v1.PersistentVolumeClaim {
	c := &v1.PersistentVolumeClaim{
		ObjectMeta: objectMeta(namespace, name),
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	for _, o := range opts {
		o.applyToClaim(c)
	}
	return c
}

// NewPV is an Available PV of 1Gi, ReadWriteOnce, reclaim policy Delete, of
// no class and no volume source.
func NewPV(name string, opts ...VolumeOption) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: objectMeta("", name),
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	for _, o := range opts {
		o.applyToVolume(pv)
	}
	return pv
}

// NewClass is a StorageClass of provisioner, which binds at once.
func NewClass(name, provisioner string, opts ...ClassOption) *storagev1.StorageClass {
	c := &storagev1.StorageClass{ObjectMeta: objectMeta("", name), Provisioner: provisioner}
	for _, o := range opts {
		o.applyToClass(c)
	}
	return c
}

// NewSnapshot is a VolumeSnapshot with no source nor status.
func NewSnapshot(namespace, name string, opts ...SnapshotOption) *snapv1.VolumeSnapshot {
	s := &snapv1.VolumeSnapshot{ObjectMeta: objectMeta(namespace, name)}
	for _, o := range opts {
		o.applyToSnapshot(s)
	}
	return s
}

// storageOption is an option of a field claims and PVs (and, where they
// have it, StorageClasses) share.
type storageOption struct {
	claim  ClaimFunc
	volume VolumeFunc
	class  ClassFunc
}

func (o storageOption) applyToClaim(c *v1.PersistentVolumeClaim) { o.claim(c) }
func (o storageOption) applyToVolume(pv *v1.PersistentVolume)    { o.volume(pv) }
func (o storageOption) applyToClass(c *storagev1.StorageClass)   { o.class(c) }

// ClaimOrVolumeOption is an option of claims and PVs alike.
type ClaimOrVolumeOption interface {
	ClaimOption
	VolumeOption
}

// VolumeOrClassOption is an option of PVs and StorageClasses alike.
type VolumeOrClassOption interface {
	VolumeOption
	ClassOption
}

// WithClass is the claim's class, or the PV's.
func WithClass(class string) ClaimOrVolumeOption {
	return storageOption{
		claim:  func(c *v1.PersistentVolumeClaim) { c.Spec.StorageClassName = &class },
		volume: func(pv *v1.PersistentVolume) { pv.Spec.StorageClassName = class },
	}
}

// WithSize is the claim's request, or the PV's capacity ("10Gi").
func WithSize(size string) ClaimOrVolumeOption {
	q := resource.MustParse(size)
	return storageOption{
		claim:  func(c *v1.PersistentVolumeClaim) { c.Spec.Resources.Requests[v1.ResourceStorage] = q },
		volume: func(pv *v1.PersistentVolume) { pv.Spec.Capacity[v1.ResourceStorage] = q },
	}
}

// WithAccessModes are the claim's access modes, or the PV's.
func WithAccessModes(modes ...v1.PersistentVolumeAccessMode) ClaimOrVolumeOption {
	return storageOption{
		claim:  func(c *v1.PersistentVolumeClaim) { c.Spec.AccessModes = slices.Clone(modes) },
		volume: func(pv *v1.PersistentVolume) { pv.Spec.AccessModes = slices.Clone(modes) },
	}
}

// WithVolumeMode is the claim's volume mode, or the PV's.
func WithVolumeMode(mode v1.PersistentVolumeMode) ClaimOrVolumeOption {
	return storageOption{
		claim:  func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeMode = &mode },
		volume: func(pv *v1.PersistentVolume) { pv.Spec.VolumeMode = &mode },
	}
}

// WithReclaimPolicy is the PV's reclaim policy, or the class's.
func WithReclaimPolicy(policy v1.PersistentVolumeReclaimPolicy) VolumeOrClassOption {
	return storageOption{
		volume: func(pv *v1.PersistentVolume) { pv.Spec.PersistentVolumeReclaimPolicy = policy },
		class:  func(c *storagev1.StorageClass) { c.ReclaimPolicy = &policy },
	}
}

// WithClaimPhase is the claim's phase.
func WithClaimPhase(phase v1.PersistentVolumeClaimPhase) ClaimFunc {
	return func(c *v1.PersistentVolumeClaim) { c.Status.Phase = phase }
}

// WithVolumeName is the PV a claim names.
func WithVolumeName(volume string) ClaimFunc {
	return func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeName = volume }
}

// FromSnapshot is a claim that restores the VolumeSnapshot of its
// namespace called snapshot, named by its dataSourceRef.
func FromSnapshot(snapshot string) ClaimFunc {
	group := snapv1.GroupName
	return func(c *v1.PersistentVolumeClaim) {
		c.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: &group, Kind: "VolumeSnapshot", Name: snapshot}
	}
}

// WithVolumePhase is the PV's phase.
func WithVolumePhase(phase v1.PersistentVolumePhase) VolumeFunc {
	return func(pv *v1.PersistentVolume) { pv.Status.Phase = phase }
}

// WithCSI is a PV of a CSI driver, with the volume handle the driver gave.
func WithCSI(driver, handle string) VolumeFunc {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}}
	}
}

// WithLocalPath is a local PV of path.
func WithLocalPath(path string) VolumeFunc {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{Local: &v1.LocalVolumeSource{Path: path}}
	}
}

// WithHostPath is an in-tree host path PV of path.
func WithHostPath(path string) VolumeFunc {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{HostPath: &v1.HostPathVolumeSource{Path: path}}
	}
}

// BoundTo is a PV bound to the claim namespace/name of uid, as the binder
// leaves it.
func BoundTo(namespace, name string, uid types.UID) VolumeFunc {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.ClaimRef = &v1.ObjectReference{
			Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: namespace, Name: name, UID: uid,
		}
		pv.Status.Phase = v1.VolumeBound
	}
}

// ReleasedFrom is a PV whose claim namespace/name of uid was deleted: it
// keeps the claimRef.
func ReleasedFrom(namespace, name string, uid types.UID) VolumeFunc {
	return func(pv *v1.PersistentVolume) {
		BoundTo(namespace, name, uid)(pv)
		pv.Status.Phase = v1.VolumeReleased
	}
}

// WithNodeAffinity is a PV reachable from the nodes whose label key has
// one of values.
func WithNodeAffinity(key string, values ...string) VolumeFunc {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: slices.Clone(values)}},
		}}}}
	}
}

// WithBindingMode is the class's volume binding mode.
func WithBindingMode(mode storagev1.VolumeBindingMode) ClassFunc {
	return func(c *storagev1.StorageClass) { c.VolumeBindingMode = &mode }
}

// WithParameters are the class's parameters.
func WithParameters(parameters map[string]string) ClassFunc {
	return func(c *storagev1.StorageClass) { c.Parameters = maps.Clone(parameters) }
}
