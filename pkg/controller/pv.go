package controller

import (
	"slices"

	"maps"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/controller/topology"
)

// ProvisionerIDKey is the volume attribute that names the provisioner
// instance that created a volume.
const ProvisionerIDKey = "storage.kubernetes.io/csiProvisionerIdentity"

// pvSpec is everything the PV of a new volume is made from.
type pvSpec struct {
	name         string
	claim        *v1.PersistentVolumeClaim
	class        string
	reclaim      v1.PersistentVolumeReclaimPolicy
	mountOptions []string
	fsType       string
	capacity     int64
	volume       *csi.Volume
	secrets      pvSecrets
	topology     bool
	// attributes is the claim's VolumeAttributesClass, "" for none.
	attributes string
}

// pvSecrets are the references the PV carries for later CSI calls, and the
// deletion secret the provisioner itself needs when the claim is long gone.
type pvSecrets struct {
	deletion          *v1.SecretReference
	controllerPublish *v1.SecretReference
	nodeStage         *v1.SecretReference
	nodePublish       *v1.SecretReference
	controllerExpand  *v1.SecretReference
	nodeExpand        *v1.SecretReference
	controllerModify  *v1.SecretReference
}

func (p *Provisioner) buildPV(s pvSpec) *v1.PersistentVolume {
	attributes := map[string]string{ProvisionerIDKey: p.opts.Identity}
	maps.Copy(attributes, s.volume.VolumeContext)
	source := &v1.CSIPersistentVolumeSource{
		Driver:                     p.opts.DriverName,
		VolumeHandle:               s.volume.VolumeId,
		VolumeAttributes:           attributes,
		ReadOnly:                   p.opts.ControllerPublishReadOnly && readOnlyClaim(s.claim),
		ControllerPublishSecretRef: s.secrets.controllerPublish,
		NodeStageSecretRef:         s.secrets.nodeStage,
		NodePublishSecretRef:       s.secrets.nodePublish,
		ControllerExpandSecretRef:  s.secrets.controllerExpand,
		NodeExpandSecretRef:        s.secrets.nodeExpand,
	}
	if !isBlock(s.claim) {
		source.FSType = s.fsType
	}
	volumeMode := v1.PersistentVolumeFilesystem
	if isBlock(s.claim) {
		volumeMode = v1.PersistentVolumeBlock
	}
	pv := &v1.PersistentVolume{
		// Copied once: the PV does not follow later changes of the claim.
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: p.opts.ClaimLabelsToVolume.Select(s.claim.Labels)},
		Spec: v1.PersistentVolumeSpec{
			AccessModes:                   s.claim.Spec.AccessModes,
			MountOptions:                  s.mountOptions,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(s.capacity, resource.BinarySI)},
			PersistentVolumeReclaimPolicy: s.reclaim,
			StorageClassName:              s.class,
			VolumeMode:                    &volumeMode,
			PersistentVolumeSource:        v1.PersistentVolumeSource{CSI: source},
		},
	}
	if s.attributes != "" {
		// The PV binder binds a claim only to a PV of the same class.
		pv.Spec.VolumeAttributesClassName = &s.attributes
	}
	// Recorded even when empty: deletion then uses exactly what creation
	// used, whatever happens to the class later.
	parameters.SetDeletionSecretAnnotations(pv, s.secrets.deletion)
	parameters.SetControllerModifySecretAnnotations(pv, s.secrets.controllerModify)
	if s.topology {
		pv.Spec.NodeAffinity = topology.NodeAffinity(s.volume.AccessibleTopology)
	}
	return pv
}

// readOnlyClaim tells whether a claim only ever reads its volume.
func readOnlyClaim(claim *v1.PersistentVolumeClaim) bool {
	modes := claim.Spec.AccessModes
	return slices.Contains(modes, v1.ReadOnlyMany) &&
		!slices.Contains(modes, v1.ReadWriteOnce) &&
		!slices.Contains(modes, v1.ReadWriteMany) &&
		!slices.Contains(modes, v1.ReadWriteOncePod)
}
