package pvprotection

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what PV protection is doing.
type Metrics struct {
	metricsutil.Set
	// HeldVolumes counts PVs being deleted whose deletion waits because a
	// claim is still bound to them.
	HeldVolumes *metrics.Gauge
	metricsutil.Holds
}

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("pv_protection")
	m.HeldVolumes = f.Gauge("held_volumes",
		"PersistentVolumes being deleted whose deletion waits because a claim is bound to them.")
	m.Holds = f.Holds(metricsutil.HoldsHelp{
		Object: "PersistentVolume", Holder: "PV protection",
		Added:   "pv-protection finalizers added to PersistentVolumes that lacked them.",
		Removed: "pv-protection finalizers removed from PersistentVolumes being deleted.",
	})
	return m
}
