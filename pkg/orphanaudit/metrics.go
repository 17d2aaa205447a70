package orphanaudit

import (
	"k8s.io/component-base/metrics"
)

// Metrics tell an operator what the audit found.
type Metrics struct {
	// OrphanedVolumes is the number of the driver's volumes that nothing
	// accounted for during the grace period, at the last audit.
	OrphanedVolumes *metrics.Gauge
	// Audits counts audits by result: "success", or "error" when the
	// driver could not be listed.
	Audits *metrics.CounterVec
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	const namespace, subsystem = "csi_provisioner", "orphan_audit"
	return &Metrics{
		OrphanedVolumes: metrics.NewGauge(&metrics.GaugeOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "orphaned_volumes",
			Help:           "Volumes the driver lists that no PersistentVolume or claim has accounted for during the grace period, at the last audit.",
			StabilityLevel: metrics.ALPHA,
		}),
		Audits: metrics.NewCounterVec(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "audits_total",
			Help:           "Orphan audits by result: success, or error when the driver's volumes could not be listed.",
			StabilityLevel: metrics.ALPHA,
		}, []string{"result"}),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.OrphanedVolumes, m.Audits}
}
