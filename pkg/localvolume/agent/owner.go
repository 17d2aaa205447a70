package agent

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// owner is a LocalVolume or LocalVolumeSet as the agent uses it.
type owner struct {
	kind, namespace, name string
	uid                   types.UID
	deleting              bool
	nodeSelector          *corev1.NodeSelector
	// ref is what its events are recorded on: a reference names the kind
	// without a scheme that knows it, and objects from typed clients carry
	// no apiVersion and kind.
	ref *corev1.ObjectReference
	// jobs are the device selections: one per storageClassDevices entry
	// of a LocalVolume, one for a LocalVolumeSet.
	jobs []job
}

// job is one device selection and the PVs to make of it.
type job struct {
	storageClass string
	volumeMode   corev1.PersistentVolumeMode
	fsType       string
	request      devices.Request
	// maxCount caps the PVs this owner has on this node (a LocalVolumeSet's
	// maxDeviceCount); 0 is no cap. The agent applies it itself, not
	// through Filter.MaxCount: devices that already back one of the
	// owner's PVs must count against the cap, and Select does not know
	// them.
	maxCount int
}

func (o *owner) String() string { return o.kind + " " + o.namespace + "/" + o.name }

// ownerOf reads a LocalVolume or LocalVolumeSet, or the tombstone of one,
// as an informer or lister hands it over.
func ownerOf(obj interface{}) (*owner, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	switch o := obj.(type) {
	case *localv1.LocalVolume:
		return fromLocalVolume(o), true
	case *localv1alpha1.LocalVolumeSet:
		return fromLocalVolumeSet(o), true
	}
	return nil, false
}

func newOwner(kind, apiVersion string, m *metav1.ObjectMeta, selector *corev1.NodeSelector) *owner {
	return &owner{
		kind: kind, namespace: m.Namespace, name: m.Name, uid: m.UID,
		deleting: m.DeletionTimestamp != nil, nodeSelector: selector,
		ref: &corev1.ObjectReference{
			Kind: kind, APIVersion: apiVersion, Namespace: m.Namespace, Name: m.Name,
			UID: m.UID, ResourceVersion: m.ResourceVersion,
		},
	}
}

func fromLocalVolume(lv *localv1.LocalVolume) *owner {
	o := newOwner(KindLocalVolume, localv1.SchemeGroupVersion.String(), &lv.ObjectMeta, lv.Spec.NodeSelector)
	for _, scd := range lv.Spec.StorageClassDevices {
		if len(scd.DevicePaths) == 0 {
			continue
		}
		o.jobs = append(o.jobs, job{
			storageClass: scd.StorageClassName,
			volumeMode:   volumeMode(string(scd.VolumeMode)),
			fsType:       scd.FSType,
			request:      devices.Request{Paths: slices.Clone(scd.DevicePaths), Force: scd.ForceWipeDevicesAndDestroyAllData},
		})
	}
	return o
}

func fromLocalVolumeSet(lvs *localv1alpha1.LocalVolumeSet) *owner {
	o := newOwner(KindLocalVolumeSet, localv1alpha1.SchemeGroupVersion.String(), &lvs.ObjectMeta, lvs.Spec.NodeSelector)
	j := job{
		storageClass: lvs.Spec.StorageClassName,
		volumeMode:   volumeMode(string(lvs.Spec.VolumeMode)),
		fsType:       lvs.Spec.FSType,
		request:      devices.Request{Filter: filterFrom(lvs.Spec.DeviceInclusionSpec)},
	}
	if m := lvs.Spec.MaxDeviceCount; m != nil {
		if *m <= 0 {
			// Nothing may be provisioned; an explicit 0 is not "no cap".
			return o
		}
		j.maxCount = int(*m)
	}
	o.jobs = append(o.jobs, j)
	return o
}

// getOwner reads the owner key from the cache; nil when it does not exist.
func (a *Agent) getOwner(key Key) (*owner, error) {
	var obj interface{}
	var err error
	switch key.Kind {
	case KindLocalVolume:
		obj, err = a.localVolumes.LocalVolumes(key.Namespace).Get(key.Name)
	case KindLocalVolumeSet:
		obj, err = a.localVolumeSets.LocalVolumeSets(key.Namespace).Get(key.Name)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, reconcile.IgnoreNotFound(err)
	}
	o, _ := ownerOf(obj)
	return o, nil
}

func volumeMode(m string) corev1.PersistentVolumeMode {
	if m == string(corev1.PersistentVolumeBlock) {
		return corev1.PersistentVolumeBlock
	}
	return corev1.PersistentVolumeFilesystem
}

// filterFrom maps a deviceInclusionSpec onto the device library's Filter.
// Filter.MaxCount stays 0: see job.maxCount.
func filterFrom(spec *localv1alpha1.DeviceInclusionSpec) *devices.Filter {
	f := &devices.Filter{}
	if spec == nil {
		return f
	}
	for _, t := range spec.DeviceTypes {
		f.DeviceTypes = append(f.DeviceTypes, string(t))
	}
	rot := slices.Contains(spec.DeviceMechanicalProperties, localv1alpha1.Rotational)
	nonRot := slices.Contains(spec.DeviceMechanicalProperties, localv1alpha1.NonRotational)
	if rot != nonRot { // both or neither: no constraint
		f.Rotational = &rot
	}
	if spec.MinSize != nil {
		v := spec.MinSize.Value()
		f.MinSize = &v
	}
	if spec.MaxSize != nil {
		v := spec.MaxSize.Value()
		f.MaxSize = &v
	}
	f.Models = slices.Clone(spec.Models)
	f.Vendors = slices.Clone(spec.Vendors)
	return f
}
