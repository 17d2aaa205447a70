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

func TestDrainTakesWhatIsBuffered(t *testing.T) {
	ch := make(chan string, 3)
	ch <- "a"
	ch <- "b"
	if got := Drain(ch); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("got %v", got)
	}
	if got := Drain(ch); len(got) != 0 {
		t.Errorf("second drain got %v", got)
	}
}
