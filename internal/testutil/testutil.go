// Package testutil holds the helpers the controllers' unit tests share:
// reading a metric from a registry, draining a fake event recorder or a
// test logger's errors, waiting for a condition and recording a reconcile
// loop's syncs.
package testutil

import (
	"context"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/testutil/poll"
)

// Gatherer is what a metrics registry offers to read it back.
type Gatherer interface {
	Gather() ([]*dto.MetricFamily, error)
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

// Drain returns the events a fake recorder has buffered, without waiting.
func Drain(events <-chan string) []string {
	var out []string
	for {
		select {
		case ev := <-events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// ErrorLogs returns the messages of the error-level entries a buffering
// ktesting logger has written so far.
func ErrorLogs(logs ktesting.Buffer) []string {
	var out []string
	for _, entry := range logs.Data() {
		if entry.Type == ktesting.LogError {
			out = append(out, entry.Message)
		}
	}
	return out
}

// Eventually polls cond until it holds, or fails the test after timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	// Not t.Context(): that ends before cleanups, which may wait too.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := poll.Until(ctx, 5*time.Millisecond, func(context.Context) (bool, error) { return cond(), nil }, nil); err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// RunUntilCleanup runs run (a controller's Run) on a goroutine of its own
// until the test ends: the test's cleanup cancels its context and fails the
// test if run has not returned within 5 seconds.
func RunUntilCleanup(t testing.TB, ctx context.Context, run func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
}
