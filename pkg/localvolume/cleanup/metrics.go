package cleanup

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what the cleanup of deleted LocalVolumes and
// LocalVolumeSets is doing.
type Metrics struct {
	metricsutil.Set
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

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("local_volume_cleanup")
	m.BlockedDeletions = f.Gauge("blocked_deletions",
		"LocalVolumes and LocalVolumeSets being deleted whose deletion waits on a bound or retained PersistentVolume.")
	m.VolumesReleased = f.Counter("volumes_released_total",
		"Unbound local PersistentVolumes deleted so that no claim can bind them.")
	m.VolumesAbandoned = f.Counter("volumes_abandoned_total",
		"Local PersistentVolumes on gone or unselected nodes deleted and let go without their node agent.")
	m.FinalizersRemoved = f.Counter("finalizers_removed_total",
		"local-volume-protection finalizers removed from LocalVolumes and LocalVolumeSets.")
	return m
}
