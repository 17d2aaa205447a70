package pvprotection

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what PV protection is doing.
type Metrics struct {
	// HeldVolumes counts PVs being deleted whose deletion waits because a
	// claim is still bound to them.
	HeldVolumes *metrics.Gauge
	// OldestHoldAge is the seconds since the deletion of the PV held
	// longest, 0 when none is held.
	OldestHoldAge *metricsutil.AgeGauge
	// FinalizersAdded and FinalizersRemoved count pv-protection finalizer
	// writes that succeeded.
	FinalizersAdded   *metrics.Counter
	FinalizersRemoved *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	f := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "pv_protection"}
	return &Metrics{
		HeldVolumes: f.Gauge("held_volumes",
			"PersistentVolumes being deleted whose deletion waits because a claim is bound to them."),
		OldestHoldAge: f.AgeGauge("oldest_hold_age_seconds",
			"Seconds since the deletion of the PersistentVolume whose deletion PV protection has held longest; 0 when none is held."),
		FinalizersAdded: f.Counter("finalizers_added_total",
			"pv-protection finalizers added to PersistentVolumes that lacked them."),
		FinalizersRemoved: f.Counter("finalizers_removed_total",
			"pv-protection finalizers removed from PersistentVolumes being deleted."),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.HeldVolumes, m.FinalizersAdded, m.FinalizersRemoved}
}

// Collectors lists the metrics computed at scrape time, for
// CustomMustRegister.
func (m *Metrics) Collectors() []metrics.StableCollector {
	return []metrics.StableCollector{m.OldestHoldAge}
}
