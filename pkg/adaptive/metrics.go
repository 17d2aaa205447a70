package adaptive

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics show the bound and the calls in flight.
type Metrics struct {
	Limit    *metrics.Gauge
	InFlight *metrics.Gauge
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	f := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "adaptive_concurrency"}
	return &Metrics{
		Limit:    f.Gauge("limit", "Bound on CreateVolume and DeleteVolume calls in flight (--adaptive-concurrency): halved when the backend refuses for load, grown back by successes."),
		InFlight: f.Gauge("in_flight", "CreateVolume and DeleteVolume calls in flight under the adaptive bound."),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.Limit, m.InFlight}
}

// Observe is a Limiter's observer that sets the gauges.
func (m *Metrics) Observe(limit float64, inFlight int) {
	m.Limit.Set(float64(int(limit)))
	m.InFlight.Set(float64(inFlight))
}
