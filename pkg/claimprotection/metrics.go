package claimprotection

import (
	"k8s.io/component-base/metrics"
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
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	const namespace, subsystem = "csi_provisioner", "provisioning_protection"
	return &Metrics{
		HeldClaims: metrics.NewGauge(&metrics.GaugeOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "held_claims",
			Help:           "Claims being deleted whose deletion waits until no CreateVolume for them can be running.",
			StabilityLevel: metrics.ALPHA,
		}),
		FinalizersRemoved: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "finalizers_removed_total",
			Help:           "Provisioning-protection finalizers removed from claims.",
			StabilityLevel: metrics.ALPHA,
		}),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.HeldClaims, m.FinalizersRemoved}
}
