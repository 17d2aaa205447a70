package testutil

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2/ktesting"
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

func TestErrorLogsKeepsOnlyErrors(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	logger.Info("fine")
	logger.Error(nil, "broken")
	buf := logger.GetSink().(ktesting.Underlier).GetBuffer()
	if got := ErrorLogs(buf); len(got) != 1 || got[0] != "broken" {
		t.Errorf("got %q, want [broken]", got)
	}
}

// fatals is a testing.TB whose Fatalf only records, to test failures.
type fatals struct {
	testing.TB
	msgs []string
}

func (f *fatals) Helper() {}

func (f *fatals) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func TestEventuallyWaitsForTheConditionAndNamesItWhenItFails(t *testing.T) {
	calls := 0
	Eventually(t, 5*time.Second, "the third call", func() bool { calls++; return calls == 3 })
	if calls != 3 {
		t.Errorf("cond called %d times, want 3", calls)
	}
	f := &fatals{TB: t}
	Eventually(f, 0, "nothing", func() bool { return false })
	if len(f.msgs) != 1 || f.msgs[0] != "timed out waiting for nothing" {
		t.Errorf("failures %q", f.msgs)
	}
}
