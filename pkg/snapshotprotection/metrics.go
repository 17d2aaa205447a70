package snapshotprotection

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
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
	f := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "snapshot_source_protection"}
	return &Metrics{
		FinalizersRemoved: f.Counter("finalizers_removed_total",
			"volumesnapshot-as-source-protection finalizers removed from VolumeSnapshots once no provisioning read them."),
		Sweeps: f.Counter("sweeps_total",
			"Sweeps of every cached VolumeSnapshot for orphaned source-protection finalizers."),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.FinalizersRemoved, m.Sweeps}
}
