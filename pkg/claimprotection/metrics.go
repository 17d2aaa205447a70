package claimprotection

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what provisioning protection holds; the
// provisioner has the rest of the family (finalizers added, abandoned
// volumes deleted).
type Metrics struct {
	// HeldClaims counts claims whose deletion waits for a CreateVolume that
	// may be running.
	HeldClaims *metrics.Gauge
	// FinalizersRemoved counts provisioning-protection finalizers removed.
	FinalizersRemoved *metrics.Counter
	// OldestHoldAge is the seconds since the deletion of the claim held
	// longest, 0 when none is held.
	OldestHoldAge *metricsutil.AgeGauge
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	f := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "provisioning_protection"}
	return &Metrics{
		HeldClaims: f.Gauge("held_claims",
			"Claims being deleted whose deletion waits until no CreateVolume for them can be running."),
		FinalizersRemoved: f.Counter("finalizers_removed_total",
			"Provisioning-protection finalizers removed from claims."),
		OldestHoldAge: f.AgeGauge("oldest_hold_age_seconds",
			"Seconds since the deletion of the claim whose deletion provisioning protection has held longest; 0 when none is held."),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.HeldClaims, m.FinalizersRemoved}
}

// Collectors lists the metrics computed at scrape time, for
// CustomMustRegister.
func (m *Metrics) Collectors() []metrics.StableCollector {
	return []metrics.StableCollector{m.OldestHoldAge}
}
