package testutil

import (
	"testing"

	"k8s.io/component-base/metrics"
)

func TestMetricValueMatchesNameAndLabels(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	plain := metrics.NewCounter(&metrics.CounterOpts{Name: "plain_total", Help: "h"})
	byResult := metrics.NewCounterVec(&metrics.CounterOpts{Name: "checks_total", Help: "h"}, []string{"result"})
	gauge := metrics.NewGauge(&metrics.GaugeOpts{Name: "held", Help: "h"})
	durations := metrics.NewHistogram(&metrics.HistogramOpts{Name: "sync_seconds", Help: "h"})
	reg.MustRegister(plain, byResult, gauge, durations)
	durations.Observe(0.5)
	durations.Observe(2)
	plain.Add(2)
	byResult.WithLabelValues("cache").Inc()
	byResult.WithLabelValues("watch").Add(3)
	gauge.Set(7)

	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
		found  bool
	}{
		{"plain_total", nil, 2, true},
		{"checks_total", []string{"result", "watch"}, 3, true},
		{"checks_total", []string{"result", "list"}, 0, false},
		{"held", nil, 7, true},
		{"sync_seconds", nil, 2, true},
		{"missing", nil, 0, false},
	} {
		got, found := MetricValue(t, reg, tc.name, tc.labels...)
		if got != tc.want || found != tc.found {
			t.Errorf("%s %v: got %v, %v; want %v, %v", tc.name, tc.labels, got, found, tc.want, tc.found)
		}
	}
}

// metricSet stands for a package's Metrics: a vector, and a collector.
type metricSet struct {
	byResult *metrics.CounterVec
	held     *heldCollector
}

func (m metricSet) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.byResult}
}

func (m metricSet) Collectors() []metrics.StableCollector {
	return []metrics.StableCollector{m.held}
}

type heldCollector struct {
	metrics.BaseStableCollector
}

var heldDesc = metrics.NewDesc("held_claims", "h", nil, nil, metrics.ALPHA, "")

func (c *heldCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- heldDesc }

func (c *heldCollector) CollectWithStability(ch chan<- metrics.Metric) {
	ch <- metrics.NewLazyConstMetric(heldDesc, metrics.GaugeValue, 4)
}

// A registry registers a set's registerables and collectors, reads a label
// value never counted as zero, and fails on a name it does not know.
func TestRegistryValueKnowsTheNamesOfItsMetrics(t *testing.T) {
	set := metricSet{
		byResult: metrics.NewCounterVec(&metrics.CounterOpts{Name: "writes_total", Help: "h"}, []string{"result"}),
		held:     &heldCollector{},
	}
	reg := NewRegistry(set)
	if got := reg.Value(t, "writes_total", "result", "ok"); got != 0 {
		t.Errorf("a result never counted = %v, want 0", got)
	}
	set.byResult.WithLabelValues("ok").Add(2)
	if got := reg.Value(t, "writes_total", "result", "ok"); got != 2 {
		t.Errorf("writes_total{ok} = %v, want 2", got)
	}
	if got := reg.Value(t, "held_claims"); got != 4 {
		t.Errorf("held_claims = %v, want the collector's 4", got)
	}
	f := &fatals{TB: t}
	reg.Value(f, "renamed_total")
	if len(f.msgs) != 1 || f.msgs[0] != "no metric renamed_total" {
		t.Errorf("reading a metric not registered: failures %q", f.msgs)
	}
}
