package pvcprotection

import (
	v1 "k8s.io/api/core/v1"
)

// Annotations the PV controller sets on a claim to name the provisioner
// that is to provision it.
const (
	annStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	annBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	// annBetaStorageClass is the class of a claim from before
	// spec.storageClassName; Kubernetes still honours it.
	annBetaStorageClass = "volume.beta.kubernetes.io/storage-class"
)

// inScope tells whether this controller manages the claim's finalizer: all
// claims with AllClaims, otherwise only the claims of this driver. A claim
// out of scope is never written.
func (c *Controller) inScope(claim *v1.PersistentVolumeClaim) bool {
	if c.allClaims {
		return true
	}
	if claim.Annotations[annStorageProvisioner] == c.driverName ||
		claim.Annotations[annBetaStorageProvisioner] == c.driverName {
		return true
	}
	name := claimClassName(claim)
	if name == "" {
		return false
	}
	// A class not (yet) in the cache leaves the claim alone: touching
	// another driver's claim is worse than a late finalizer, and the
	// PV controller annotates every claim it hands to a provisioner.
	class, err := c.classes.Get(name)
	return err == nil && (class.Provisioner == c.driverName || (c.inTreePlugin != "" && class.Provisioner == c.inTreePlugin))
}

func claimClassName(claim *v1.PersistentVolumeClaim) string {
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	return claim.Annotations[annBetaStorageClass]
}
