package controller

import (
	"k8s.io/component-base/metrics"
)

// ProtectionMetrics tell an operator what provisioning protection is doing.
type ProtectionMetrics struct {
	// HeldClaims counts claims whose deletion waits for a CreateVolume that
	// may be running.
	HeldClaims *metrics.Gauge
	// FinalizersAdded and FinalizersRemoved count provisioning-protection
	// finalizer writes.
	FinalizersAdded   *metrics.Counter
	FinalizersRemoved *metrics.Counter
	// AbandonedVolumesDeleted counts volumes deleted because their claim was
	// deleted while they were being provisioned.
	AbandonedVolumesDeleted *metrics.Counter
}

// NewProtectionMetrics returns unregistered metrics; Registerables lists them
// for the caller's registry.
func NewProtectionMetrics() *ProtectionMetrics {
	const subsystem = "provisioning_protection"
	return &ProtectionMetrics{
		HeldClaims: metrics.NewGauge(&metrics.GaugeOpts{
			Namespace: "csi_provisioner", Subsystem: subsystem, Name: "held_claims",
			Help:           "Claims being deleted whose deletion waits until no CreateVolume for them can be running.",
			StabilityLevel: metrics.ALPHA,
		}),
		FinalizersAdded: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: "csi_provisioner", Subsystem: subsystem, Name: "finalizers_added_total",
			Help:           "Provisioning-protection finalizers added to claims before CreateVolume.",
			StabilityLevel: metrics.ALPHA,
		}),
		FinalizersRemoved: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: "csi_provisioner", Subsystem: subsystem, Name: "finalizers_removed_total",
			Help:           "Provisioning-protection finalizers removed from claims.",
			StabilityLevel: metrics.ALPHA,
		}),
		AbandonedVolumesDeleted: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: "csi_provisioner", Subsystem: subsystem, Name: "abandoned_volumes_deleted_total",
			Help:           "Volumes deleted because their claim was deleted while they were being provisioned.",
			StabilityLevel: metrics.ALPHA,
		}),
	}
}

// Registerables lists the metrics for registration.
func (m *ProtectionMetrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.HeldClaims, m.FinalizersAdded, m.FinalizersRemoved, m.AbandonedVolumesDeleted}
}
