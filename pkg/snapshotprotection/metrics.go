package snapshotprotection

import (
	"k8s.io/component-base/metrics"
)

// Metrics tell an operator what the controller holds and released.
type Metrics struct {
	// FinalizersRemoved counts source-protection finalizers removed from
	// snapshots.
	FinalizersRemoved *metrics.Counter
	// Sweeps counts passes over every cached snapshot.
	Sweeps *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them.
func NewMetrics() *Metrics {
	const namespace, subsystem = "csi_provisioner", "snapshot_source_protection"
	return &Metrics{
		FinalizersRemoved: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "finalizers_removed_total",
			Help:           "volumesnapshot-as-source-protection finalizers removed from VolumeSnapshots once no provisioning read them.",
			StabilityLevel: metrics.ALPHA,
		}),
		Sweeps: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "sweeps_total",
			Help:           "Sweeps of every cached VolumeSnapshot for orphaned source-protection finalizers.",
			StabilityLevel: metrics.ALPHA,
		}),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.FinalizersRemoved, m.Sweeps}
}
