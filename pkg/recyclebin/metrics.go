package recyclebin

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what the bin holds and what it did.
type Metrics struct {
	// RetainedVolumes and RetainedBytes are the volumes kept now, and the
	// capacity of their PVs: they still use the backend's capacity.
	RetainedVolumes *metrics.Gauge
	RetainedBytes   *metrics.Gauge
	// Restores, Expiries and Purges count volumes given back, deleted at
	// their deadline, and deleted early on request.
	Restores *metrics.Counter
	Expiries *metrics.Counter
	Purges   *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	f := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "recycle_bin"}
	return &Metrics{
		RetainedVolumes: f.Gauge("retained_volumes", "Released volumes the recycle bin keeps until their deadline."),
		RetainedBytes:   f.Gauge("retained_bytes", "Capacity of the PersistentVolumes the recycle bin keeps."),
		Restores:        f.Counter("restores_total", "Retained volumes given back to a new claim."),
		Expiries:        f.Counter("expiries_total", "Retained volumes handed to deletion at their deadline."),
		Purges:          f.Counter("purges_total", "Retained volumes handed to deletion before their deadline, on request."),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.RetainedVolumes, m.RetainedBytes, m.Restores, m.Expiries, m.Purges}
}
