package metricsutil

import (
	"sync"
	"time"

	"k8s.io/component-base/metrics"
)

// Oldest reports the oldest of a set of times (when the oldest hold
// started, say), and false when the set is empty.
type Oldest func() (time.Time, bool)

// AgeGauge is a gauge of the seconds since the oldest time its source
// reports, computed when it is scraped, so that it grows between the
// events that change the set: 0 while the set is empty or no source is
// tracked yet. An alert on it needs no timestamp arithmetic:
// `..._age_seconds > 1800`.
type AgeGauge struct {
	metrics.BaseStableCollector

	desc *metrics.Desc
	now  func() time.Time

	mu     sync.Mutex
	oldest Oldest
}

var _ metrics.StableCollector = &AgeGauge{}

// AgeGauge returns an unregistered ALPHA age gauge named
// Namespace_Subsystem_name; register it with CustomMustRegister (a Set
// lists it among its Collectors).
func (f Factory) AgeGauge(name, help string) *AgeGauge {
	g := &AgeGauge{
		desc: Desc(metrics.BuildFQName(f.Namespace, f.Subsystem, name), help),
		now:  time.Now,
	}
	f.set.addCollector(g)
	return g
}

// Track makes oldest the gauge's source; the controller that owns the set
// calls it once it exists. oldest must be safe for concurrent use.
func (g *AgeGauge) Track(oldest Oldest) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.oldest = oldest
}

// Age is what a scrape reports now.
func (g *AgeGauge) Age() time.Duration {
	g.mu.Lock()
	oldest := g.oldest
	g.mu.Unlock()
	if oldest == nil {
		return 0
	}
	t, ok := oldest()
	if !ok {
		return 0
	}
	return max(g.now().Sub(t), 0)
}

// DescribeWithStability implements metrics.StableCollector.
func (g *AgeGauge) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- g.desc
}

// CollectWithStability implements metrics.StableCollector.
func (g *AgeGauge) CollectWithStability(ch chan<- metrics.Metric) {
	ch <- metrics.NewLazyConstMetric(g.desc, metrics.GaugeValue, g.Age().Seconds())
}
