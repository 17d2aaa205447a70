package testutil

import (
	"slices"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics"
)

// Gatherer is what a metrics registry offers to read it back.
type Gatherer interface {
	Gather() ([]*dto.MetricFamily, error)
}

// MetricSet is a package's metrics, as its Metrics type hands them to a
// registry. A set that also has Collectors() []metrics.StableCollector
// registers those too.
type MetricSet interface {
	Registerables() []metrics.Registerable
}

type collectorSet interface {
	Collectors() []metrics.StableCollector
}

// Registry is a registry of a test's own, which knows the names of the
// metrics registered in it.
type Registry struct {
	metrics.KubeRegistry
	names []string
}

// NewRegistry is a registry holding sets.
func NewRegistry(sets ...MetricSet) *Registry {
	r := &Registry{KubeRegistry: metrics.NewKubeRegistry()}
	for _, set := range sets {
		for _, m := range set.Registerables() {
			r.names = append(r.names, m.FQName())
		}
		r.MustRegister(set.Registerables()...)
		if c, ok := set.(collectorSet); ok {
			r.CustomMustRegister(c.Collectors()...)
		}
	}
	return r
}

// Value is the value of the metric name whose labels include labels
// (name, value...), as MetricValue reads it, and 0 when no series has
// them: a vector exports nothing for a label value never counted. The
// test fails when name is neither registered nor gathered, so that a
// renamed metric does not read as zero.
func (r *Registry) Value(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	if v, ok := MetricValue(t, r, name, labels...); ok {
		return v
	}
	if _, ok := MetricValue(t, r, name); !ok && !slices.Contains(r.names, name) {
		t.Fatalf("no metric %s", name)
	}
	return 0
}

// MetricValue returns the value of the counter or gauge (the observation
// count of a histogram or summary) called name whose
// labels include every pair in labels (name, value, name, value...), and
// false if there is none.
func MetricValue(t testing.TB, g Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m, labels) {
				continue
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				return m.GetCounter().GetValue(), true
			case dto.MetricType_GAUGE:
				return m.GetGauge().GetValue(), true
			case dto.MetricType_HISTOGRAM:
				// The number of observations, as the _count series.
				return float64(m.GetHistogram().GetSampleCount()), true
			case dto.MetricType_SUMMARY:
				return float64(m.GetSummary().GetSampleCount()), true
			}
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// Metric is MetricValue for a metric that must exist: the test fails if it
// does not, rather than reading zero.
func Metric(t testing.TB, g Gatherer, name string, labels ...string) float64 {
	t.Helper()
	v, ok := MetricValue(t, g, name, labels...)
	if !ok {
		t.Fatalf("no metric %s with labels %v", name, labels)
	}
	return v
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
