package agent

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

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
	// obj is the object as listed, for events (it carries apiVersion and
	// kind, so the recorder can name it without a scheme).
	obj *unstructured.Unstructured
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

// ownerFrom converts a listed object.
func ownerFrom(kind string, u *unstructured.Unstructured) (*owner, error) {
	o := &owner{
		kind: kind, namespace: u.GetNamespace(), name: u.GetName(), uid: u.GetUID(),
		deleting: u.GetDeletionTimestamp() != nil, obj: u,
	}
	switch kind {
	case KindLocalVolume:
		var lv localv1.LocalVolume
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &lv); err != nil {
			return nil, fmt.Errorf("%s: %w", o, err)
		}
		o.nodeSelector = lv.Spec.NodeSelector
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
	case KindLocalVolumeSet:
		var lvs localv1alpha1.LocalVolumeSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &lvs); err != nil {
			return nil, fmt.Errorf("%s: %w", o, err)
		}
		o.nodeSelector = lvs.Spec.NodeSelector
		j := job{
			storageClass: lvs.Spec.StorageClassName,
			volumeMode:   volumeMode(string(lvs.Spec.VolumeMode)),
			fsType:       lvs.Spec.FSType,
			request:      devices.Request{Filter: filterFrom(lvs.Spec.DeviceInclusionSpec)},
		}
		if m := lvs.Spec.MaxDeviceCount; m != nil {
			if *m <= 0 {
				// Nothing may be provisioned; an explicit 0 is not "no cap".
				return o, nil
			}
			j.maxCount = int(*m)
		}
		o.jobs = append(o.jobs, j)
	default:
		return nil, fmt.Errorf("unknown owner kind %q", kind)
	}
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
