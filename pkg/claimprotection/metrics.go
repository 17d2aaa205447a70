package claimprotection

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what provisioning protection holds; the
// provisioner has the rest of the family (finalizers added, abandoned
// volumes deleted), so FinalizersAdded is nil.
type Metrics struct {
	metricsutil.Set
	// HeldClaims counts claims whose deletion waits for a CreateVolume that
	// may be running.
	HeldClaims *metrics.Gauge
	metricsutil.Holds
}

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("provisioning_protection")
	m.HeldClaims = f.Gauge("held_claims",
		"Claims being deleted whose deletion waits until no CreateVolume for them can be running.")
	m.Holds = f.Holds(metricsutil.HoldsHelp{
		Object: "claim", Holder: "provisioning protection",
		Removed: "Provisioning-protection finalizers removed from claims.",
	})
	return m
}
