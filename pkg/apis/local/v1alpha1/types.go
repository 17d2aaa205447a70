package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PersistentVolumeMode is the volume mode of the PVs created for a
// LocalVolumeSet.
// +kubebuilder:validation:Enum=Block;Filesystem
type PersistentVolumeMode string

const (
	// PersistentVolumeBlock exposes the device as a raw block volume.
	PersistentVolumeBlock PersistentVolumeMode = "Block"
	// PersistentVolumeFilesystem formats the device (with fsType) and
	// exposes it as a filesystem volume. It is the default.
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// DeviceType is a kind of block device, as lsblk reports it in TYPE.
// +kubebuilder:validation:Enum=disk;part;loop;mpath
type DeviceType string

const (
	// RawDisk is a whole disk.
	RawDisk DeviceType = "disk"
	// Partition is a partition of a disk.
	Partition DeviceType = "part"
	// Loop is a loop device.
	Loop DeviceType = "loop"
	// MultiPath is a device-mapper multipath device.
	MultiPath DeviceType = "mpath"
)

// DeviceMechanicalProperty tells spinning disks from solid-state ones.
// +kubebuilder:validation:Enum=Rotational;NonRotational
type DeviceMechanicalProperty string

const (
	// Rotational is a spinning disk (HDD).
	Rotational DeviceMechanicalProperty = "Rotational"
	// NonRotational is a solid-state device (SSD, NVMe).
	NonRotational DeviceMechanicalProperty = "NonRotational"
)

// LocalVolumeSet asks for a local PV for each device that matches its filter
// on each selected node. Deleting it deletes its unbound PVs and their
// symlinks on the nodes; bound PVs hold the deletion until their claims are
// gone.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=localvolumesets,singular=localvolumeset
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="StorageClass",type=string,JSONPath=`.spec.storageClassName`,description="Storage class of the PVs"
// +kubebuilder:printcolumn:name="VolumeMode",type=string,JSONPath=`.spec.volumeMode`,description="Volume mode of the PVs",priority=1
// +kubebuilder:printcolumn:name="Provisioned",type=integer,JSONPath=`.status.totalProvisionedDeviceCount`,description="Devices provisioned as PVs on all nodes"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type LocalVolumeSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec LocalVolumeSetSpec `json:"spec"`
	// +optional
	Status LocalVolumeSetStatus `json:"status,omitempty"`
}

// LocalVolumeSetSpec is the desired state of a LocalVolumeSet.
type LocalVolumeSetSpec struct {
	// storageClassName is the storage class of the PVs created.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	StorageClassName string `json:"storageClassName"`

	// volumeMode of the PVs: Block or Filesystem (the default).
	// +optional
	// +kubebuilder:default=Filesystem
	VolumeMode PersistentVolumeMode `json:"volumeMode,omitempty"`

	// fsType is the filesystem the devices are formatted with, for
	// volumeMode Filesystem only (for example ext4 or xfs).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	FSType string `json:"fsType,omitempty"`

	// nodeSelector selects the nodes whose devices are used. All nodes
	// when unset.
	// +optional
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty"`

	// tolerations let the node agent run on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// maxDeviceCount is the most devices provisioned per node. No limit
	// when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxDeviceCount *int32 `json:"maxDeviceCount,omitempty"`

	// deviceInclusionSpec filters the devices used. When unset, only the
	// node agent's own checks (the device is free and not in use) apply.
	// +optional
	DeviceInclusionSpec *DeviceInclusionSpec `json:"deviceInclusionSpec,omitempty"`
}

// DeviceInclusionSpec filters devices. A device must pass every filter that
// is set; a list filter passes when the device matches one of its entries.
type DeviceInclusionSpec struct {
	// deviceTypes are the device types to use: disk, part, loop or mpath.
	// +optional
	DeviceTypes []DeviceType `json:"deviceTypes,omitempty"`

	// deviceMechanicalProperties are Rotational, NonRotational or both.
	// +optional
	DeviceMechanicalProperties []DeviceMechanicalProperty `json:"deviceMechanicalProperties,omitempty"`

	// minSize is the smallest device size used.
	// +optional
	MinSize *resource.Quantity `json:"minSize,omitempty"`

	// maxSize is the largest device size used.
	// +optional
	MaxSize *resource.Quantity `json:"maxSize,omitempty"`

	// models are substrings of the device model (lsblk MODEL) to match.
	// +optional
	Models []string `json:"models,omitempty"`

	// vendors are substrings of the device vendor (lsblk VENDOR) to match.
	// +optional
	Vendors []string `json:"vendors,omitempty"`
}

// LocalVolumeSetStatus is the observed state of a LocalVolumeSet.
type LocalVolumeSetStatus struct {
	// conditions are the latest observations of the LocalVolumeSet's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// totalProvisionedDeviceCount is the number of devices provisioned as
	// PVs on all nodes.
	// +optional
	TotalProvisionedDeviceCount *int32 `json:"totalProvisionedDeviceCount,omitempty"`

	// observedGeneration is the generation of the spec that the status
	// describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// LocalVolumeSetList is a list of LocalVolumeSets.
//
// +kubebuilder:object:root=true
type LocalVolumeSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []LocalVolumeSet `json:"items"`
}
