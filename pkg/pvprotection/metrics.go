package pvprotection

import (
	"k8s.io/component-base/metrics"
)

// Metrics tell an operator what PV protection is doing.
type Metrics struct {
	// HeldVolumes counts PVs being deleted whose deletion waits because a
	// claim is still bound to them.
	HeldVolumes *metrics.Gauge
	// FinalizersAdded and FinalizersRemoved count pv-protection finalizer
	// writes that succeeded.
	FinalizersAdded   *metrics.Counter
	FinalizersRemoved *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	const namespace, subsystem = "csi_provisioner", "pv_protection"
	return &Metrics{
		HeldVolumes: metrics.NewGauge(&metrics.GaugeOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "held_volumes",
			Help:           "PersistentVolumes being deleted whose deletion waits because a claim is bound to them.",
			StabilityLevel: metrics.ALPHA,
		}),
		FinalizersAdded: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "finalizers_added_total",
			Help:           "pv-protection finalizers added to PersistentVolumes that lacked them.",
			StabilityLevel: metrics.ALPHA,
		}),
		FinalizersRemoved: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "finalizers_removed_total",
			Help:           "pv-protection finalizers removed from PersistentVolumes being deleted.",
			StabilityLevel: metrics.ALPHA,
		}),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.HeldVolumes, m.FinalizersAdded, m.FinalizersRemoved}
}
