package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PersistentVolumeMode is the volume mode of the PVs created for a
// StorageClassDevice.
// +kubebuilder:validation:Enum=Block;Filesystem
type PersistentVolumeMode string

const (
	// PersistentVolumeBlock exposes the device as a raw block volume.
	PersistentVolumeBlock PersistentVolumeMode = "Block"
	// PersistentVolumeFilesystem formats the device (with fsType) and
	// exposes it as a filesystem volume. It is the default.
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// LocalVolume asks for a local PV for each listed device on each selected
// node. Deleting it deletes its unbound PVs and their symlinks on the nodes;
// bound PVs hold the deletion until their claims are gone.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=localvolumes,singular=localvolume
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="StorageClass",type=string,JSONPath=`.spec.storageClassDevices[0].storageClassName`,description="Storage class of the first device list"
// +kubebuilder:printcolumn:name="VolumeMode",type=string,JSONPath=`.spec.storageClassDevices[0].volumeMode`,description="Volume mode of the first device list",priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type LocalVolume struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec LocalVolumeSpec `json:"spec"`
	// +optional
	Status LocalVolumeStatus `json:"status,omitempty"`
}

// LocalVolumeSpec is the desired state of a LocalVolume.
type LocalVolumeSpec struct {
	// nodeSelector selects the nodes whose devices are used. All nodes
	// when unset.
	// +optional
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty"`

	// tolerations let the node agent run on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// storageClassDevices lists the devices to use, grouped by the storage
	// class of the PVs made from them.
	// +required
	// +kubebuilder:validation:MinItems=1
	StorageClassDevices []StorageClassDevice `json:"storageClassDevices"`
}

// StorageClassDevice is a list of devices whose PVs get one storage class
// and volume mode.
type StorageClassDevice struct {
	// storageClassName is the storage class of the PVs created for these
	// devices.
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

	// devicePaths are the devices to use, each a path under /dev/, such as
	// /dev/sdb or /dev/disk/by-id/... (stable names are preferred).
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:Pattern=`^/dev/`
	// +kubebuilder:validation:items:MaxLength=4096
	DevicePaths []string `json:"devicePaths"`

	// forceWipeDevicesAndDestroyAllData wipes devices that hold a
	// filesystem, partition table or signature before they are used. All
	// data on them is lost.
	// +optional
	ForceWipeDevicesAndDestroyAllData bool `json:"forceWipeDevicesAndDestroyAllData,omitempty"`
}

// LocalVolumeStatus is the observed state of a LocalVolume.
type LocalVolumeStatus struct {
	// conditions are the latest observations of the LocalVolume's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// observedGeneration is the generation of the spec that the status
	// describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// LocalVolumeList is a list of LocalVolumes.
//
// +kubebuilder:object:root=true
type LocalVolumeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []LocalVolume `json:"items"`
}
