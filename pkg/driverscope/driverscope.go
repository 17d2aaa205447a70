// Package driverscope is the one rule for "is this claim or volume ours?":
// which claims, StorageClasses and PersistentVolumes are those of a CSI
// driver, by the annotations the PV controller writes and, under CSI
// migration, by the in-tree plugin the driver replaces. The annotation
// names are declared here and nowhere else in the project.
//
// A controller that looks further (a claim's class before the PV
// controller names a provisioner, all claims or volumes with an option)
// does so in its own code, on top of these answers.
package driverscope

import (
	v1 "k8s.io/api/core/v1"
	csitrans "k8s.io/csi-translation-lib"
)

// Annotations of the PV controller (kube-controller-manager).
const (
	// AnnStorageProvisioner names the provisioner the PV controller hands
	// a claim to; AnnBetaStorageProvisioner is its older name, still
	// written beside it.
	AnnStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	AnnBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	// AnnMigratedTo names the CSI driver that serves a claim or PV of an
	// in-tree plugin under CSI migration.
	AnnMigratedTo = "pv.kubernetes.io/migrated-to"
	// AnnProvisionedBy names the provisioner that made a PV.
	AnnProvisionedBy = "pv.kubernetes.io/provisioned-by"
)

// Driver is a CSI driver as the rule sees it.
type Driver struct {
	// Name is the CSI driver's name.
	Name string
	// InTreePlugin is the in-tree plugin the driver replaces (CSI
	// migration), "" for none.
	InTreePlugin string
}

// ServesClaim tells whether the PV controller handed claim to the driver:
// its storage-provisioner annotation (the GA one when the claim has it,
// else the beta one) names the driver, or the claim is an in-tree plugin's
// migrated to the driver.
func (d Driver) ServesClaim(claim *v1.PersistentVolumeClaim) bool {
	return ClaimProvisioner(claim) == d.Name || claim.Annotations[AnnMigratedTo] == d.Name
}

// IsProvisioner tells whether a StorageClass's provisioner is the driver:
// its own name, or the in-tree plugin's it replaces.
func (d Driver) IsProvisioner(provisioner string) bool {
	return provisioner == d.Name || (d.InTreePlugin != "" && provisioner == d.InTreePlugin)
}

// ServesVolume tells whether pv is the driver's by its source: a CSI
// volume of the driver, or a volume of the in-tree plugin it replaces,
// whoever provisioned it (a static one too).
func (d Driver) ServesVolume(pv *v1.PersistentVolume) bool {
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver == d.Name
	}
	return d.InTreePlugin != "" && inTreePluginOf(pv) == d.InTreePlugin
}

// DeletesVolume tells whether pv is one the driver's provisioner deletes
// once released: a CSI volume of the driver, or a volume the in-tree
// plugin it replaces provisioned. Unlike ServesVolume, a static volume of
// the in-tree plugin is not: no provisioner made it.
func (d Driver) DeletesVolume(pv *v1.PersistentVolume) bool {
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver == d.Name
	}
	return d.InTreePlugin != "" && pv.Annotations[AnnProvisionedBy] == d.InTreePlugin
}

// ClaimProvisioner is the provisioner the PV controller named for claim:
// the GA annotation when the claim has it, else the beta one; "" for none.
func ClaimProvisioner(claim *v1.PersistentVolumeClaim) string {
	if provisioner, ok := claim.Annotations[AnnStorageProvisioner]; ok {
		return provisioner
	}
	return claim.Annotations[AnnBetaStorageProvisioner]
}

// VolumeProvisioner is pv's CSI driver, or for another source the
// provisioner that made it; "" for none.
func VolumeProvisioner(pv *v1.PersistentVolume) string {
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver
	}
	return pv.Annotations[AnnProvisionedBy]
}

// ClaimClassName is the name of claim's StorageClass as Kubernetes reads
// it: the beta annotation v1.BetaStorageClassAnnotation when the claim has
// it, else spec.storageClassName; "" for none.
func ClaimClassName(claim *v1.PersistentVolumeClaim) string {
	if name, ok := claim.Annotations[v1.BetaStorageClassAnnotation]; ok {
		return name
	}
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	return ""
}

// translator knows which in-tree plugin a PV's source belongs to.
var translator = csitrans.New()

// inTreePluginOf names the in-tree plugin of pv's source, "" for a source
// no CSI driver replaces.
func inTreePluginOf(pv *v1.PersistentVolume) string {
	name, err := translator.GetInTreePluginNameFromSpec(pv, nil)
	if err != nil {
		return ""
	}
	return name
}
