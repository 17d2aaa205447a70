package adaptive

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics show the bound, the calls in flight and the pace.
type Metrics struct {
	metricsutil.Set
	Limit    *metrics.Gauge
	InFlight *metrics.Gauge
	Pace     *metrics.Gauge
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("adaptive_concurrency")
	m.Limit = f.Gauge("limit", "Bound on CreateVolume and DeleteVolume calls in flight (--adaptive-concurrency): halved when the backend refuses for load, grown back by successes.")
	m.InFlight = f.Gauge("in_flight", "CreateVolume and DeleteVolume calls in flight under the adaptive bound.")
	m.Pace = f.Gauge("pace", "Calls a second that CreateVolume and DeleteVolume starts are spaced to since the backend refused for load (--adaptive-concurrency); 0 while they are not spaced.")
	return m
}

// Observe is a Limiter's observer that sets the gauges.
func (m *Metrics) Observe(s State) {
	m.Limit.Set(float64(int(s.Limit)))
	m.InFlight.Set(float64(s.InFlight))
	m.Pace.Set(s.Pace)
}
