package recyclebin

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what the bin holds and what it did.
type Metrics struct {
	metricsutil.Set
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

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("recycle_bin")
	m.RetainedVolumes = f.Gauge("retained_volumes", "Released volumes the recycle bin keeps until their deadline.")
	m.RetainedBytes = f.Gauge("retained_bytes", "Capacity of the PersistentVolumes the recycle bin keeps.")
	m.Restores = f.Counter("restores_total", "Retained volumes given back to a new claim.")
	m.Expiries = f.Counter("expiries_total", "Retained volumes handed to deletion at their deadline.")
	m.Purges = f.Counter("purges_total", "Retained volumes handed to deletion before their deadline, on request.")
	return m
}
