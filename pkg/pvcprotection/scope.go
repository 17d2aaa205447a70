package pvcprotection

import (
	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

// inScope tells whether this controller manages the claim's finalizer: all
// claims with AllClaims, otherwise only the claims of this driver. A claim
// out of scope is never written.
func (c *Controller) inScope(claim *v1.PersistentVolumeClaim) bool {
	if c.allClaims || c.driver.ServesClaim(claim) {
		return true
	}
	// By its class too, before the PV controller names a provisioner on
	// the claim (a claim waiting for its first consumer), so that it is
	// protected from its creation.
	name := driverscope.ClaimClassName(claim)
	if name == "" {
		return false
	}
	// A class not (yet) in the cache leaves the claim alone: touching
	// another driver's claim is worse than a late finalizer, and the
	// PV controller annotates every claim it hands to a provisioner.
	class, err := c.classes.Get(name)
	return err == nil && c.driver.IsProvisioner(class.Provisioner)
}
