package snapshotprotection

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what the controller holds and released.
type Metrics struct {
	metricsutil.Set
	// FinalizersRemoved counts source-protection finalizers removed from
	// snapshots.
	FinalizersRemoved *metrics.Counter
	// Sweeps counts passes over every cached snapshot.
	Sweeps *metrics.Counter
}

// NewMetrics returns unregistered metrics; the Set lists them.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("snapshot_source_protection")
	m.FinalizersRemoved = f.Counter("finalizers_removed_total",
		"volumesnapshot-as-source-protection finalizers removed from VolumeSnapshots once no provisioning read them.")
	m.Sweeps = f.Counter("sweeps_total",
		"Sweeps of every cached VolumeSnapshot for orphaned source-protection finalizers.")
	return m
}
