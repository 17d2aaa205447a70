package orphanaudit

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what the audit found.
type Metrics struct {
	metricsutil.Set
	// OrphanedVolumes is the number of the driver's volumes that nothing
	// accounted for during the grace period, at the last audit.
	OrphanedVolumes *metrics.Gauge
	// Audits counts audits by result: "success", or "error" when the
	// driver could not be listed.
	Audits *metrics.CounterVec
}

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("orphan_audit")
	m.OrphanedVolumes = f.Gauge("orphaned_volumes",
		"Volumes the driver lists that no PersistentVolume or claim has accounted for during the grace period, at the last audit.")
	m.Audits = f.CounterVec("audits_total",
		"Orphan audits by result: success, or error when the driver's volumes could not be listed.", "result")
	return m
}
