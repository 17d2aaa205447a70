package cleanup

import (
	"k8s.io/component-base/metrics"
)

// Metrics tell an operator what the cleanup of deleted LocalVolumes and
// LocalVolumeSets is doing.
type Metrics struct {
	// BlockedDeletions counts LocalVolumes and LocalVolumeSets being
	// deleted whose deletion waits on a bound or retained PV.
	BlockedDeletions *metrics.Gauge
	// VolumesReleased counts unbound PVs deleted so that no claim can bind
	// them.
	VolumesReleased *metrics.Counter
	// VolumesAbandoned counts PVs on gone or unselected nodes that were
	// deleted and let go without their node agent.
	VolumesAbandoned *metrics.Counter
	// FinalizersRemoved counts local-volume-protection finalizers removed
	// from LocalVolumes and LocalVolumeSets, when no PV was left or, with
	// the feature off, as stale.
	FinalizersRemoved *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	const namespace, subsystem = "csi_provisioner", "local_volume_cleanup"
	return &Metrics{
		BlockedDeletions: metrics.NewGauge(&metrics.GaugeOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "blocked_deletions",
			Help:           "LocalVolumes and LocalVolumeSets being deleted whose deletion waits on a bound or retained PersistentVolume.",
			StabilityLevel: metrics.ALPHA,
		}),
		VolumesReleased: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "volumes_released_total",
			Help:           "Unbound local PersistentVolumes deleted so that no claim can bind them.",
			StabilityLevel: metrics.ALPHA,
		}),
		VolumesAbandoned: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "volumes_abandoned_total",
			Help:           "Local PersistentVolumes on gone or unselected nodes deleted and let go without their node agent.",
			StabilityLevel: metrics.ALPHA,
		}),
		FinalizersRemoved: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "finalizers_removed_total",
			Help:           "local-volume-protection finalizers removed from LocalVolumes and LocalVolumeSets.",
			StabilityLevel: metrics.ALPHA,
		}),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.BlockedDeletions, m.VolumesReleased, m.VolumesAbandoned, m.FinalizersRemoved}
}
