package metricsutil

import (
	"testing"
	"time"

	"k8s.io/component-base/metrics"
)

// An age gauge is 0 until it tracks a source and while the source is
// empty, then the seconds since the source's oldest time, read at scrape
// time, never negative.
func TestAgeGauge(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	g := Factory{Namespace: "ns", Subsystem: "sub"}.AgeGauge("oldest_age_seconds", "An age.")
	g.now = func() time.Time { return now }
	registry := metrics.NewKubeRegistry()
	registry.CustomMustRegister(g)

	scrape := func() string { return gather(t, registry) }
	const header = "# HELP ns_sub_oldest_age_seconds [ALPHA] An age.\n# TYPE ns_sub_oldest_age_seconds gauge\n"
	if got, want := scrape(), header+"ns_sub_oldest_age_seconds 0\n"; got != want {
		t.Errorf("without a source: got\n%s\nwant\n%s", got, want)
	}

	var oldest time.Time
	var some bool
	g.Track(func() (time.Time, bool) { return oldest, some })
	if got, want := scrape(), header+"ns_sub_oldest_age_seconds 0\n"; got != want {
		t.Errorf("empty source: got\n%s\nwant\n%s", got, want)
	}
	oldest, some = now.Add(-90*time.Second), true
	if got, want := scrape(), header+"ns_sub_oldest_age_seconds 90\n"; got != want {
		t.Errorf("oldest 90s ago: got\n%s\nwant\n%s", got, want)
	}
	now = now.Add(30 * time.Second)
	if got := g.Age(); got != 2*time.Minute {
		t.Errorf("30s later the age is %s, want 2m", got)
	}
	oldest = now.Add(time.Minute)
	if got := g.Age(); got != 0 {
		t.Errorf("a time in the future gives %s, want 0", got)
	}
}
