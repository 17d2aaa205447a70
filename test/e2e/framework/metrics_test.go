package framework

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// These tests need no control plane.

const scrape = `# HELP held_claims Claims held.
# TYPE held_claims gauge
held_claims 2
# HELP added_total Finalizers added.
# TYPE added_total counter
added_total 7
# HELP calls_total Calls by result.
# TYPE calls_total counter
calls_total{method="Create",result="ok"} 3
calls_total{method="Create",result="error"} 1
calls_total{method="Delete",result="ok"} 5
untyped_thing{a="b"} 1.5
# HELP latency_seconds Latency.
# TYPE latency_seconds histogram
latency_seconds_bucket{le="1"} 1
latency_seconds_bucket{le="+Inf"} 3
latency_seconds_sum 4.5
latency_seconds_count 3
# HELP size_bytes Sizes.
# TYPE size_bytes summary
size_bytes_sum 10
size_bytes_count 2
`

func TestMetricValue(t *testing.T) {
	for _, tc := range []struct {
		name, metric string
		labels       map[string]string
		want         float64
		err          string
	}{
		{name: "gauge", metric: "held_claims", want: 2},
		{name: "counter", metric: "added_total", want: 7},
		{name: "labelled series", metric: "calls_total", labels: map[string]string{"method": "Create", "result": "error"}, want: 1},
		{name: "labels select one series", metric: "calls_total", labels: map[string]string{"method": "Delete"}, want: 5},
		{name: "untyped", metric: "untyped_thing", want: 1.5},
		{name: "missing metric", metric: "no_such_total", err: "no metric no_such_total"},
		{name: "prefix of a metric", metric: "added", err: "no metric added"},
		{name: "missing series", metric: "calls_total", labels: map[string]string{"method": "Expand"}, err: "no series"},
		{name: "label missing on the series", metric: "held_claims", labels: map[string]string{"result": ""}, err: "no series"},
		{name: "several series", metric: "calls_total", labels: map[string]string{"result": "ok"}, err: "2 series"},
		{name: "histogram counts observations", metric: "latency_seconds", want: 3},
		{name: "summary", metric: "size_bytes", err: "not a counter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MetricValue([]byte(scrape), tc.metric, tc.labels)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestMetricSumAddsEverySeries(t *testing.T) {
	if got, err := MetricSum([]byte(scrape), "calls_total"); err != nil || got != 9 {
		t.Errorf("MetricSum(calls_total) = %v, %v; want 9", got, err)
	}
	if _, err := MetricSum([]byte(scrape), "no_such_total"); err == nil {
		t.Error("a missing metric must be an error")
	}
	if _, err := MetricSum([]byte(scrape), "latency_seconds"); err == nil {
		t.Error("a histogram has no sum of values")
	}
}

func TestMetricValueOfMalformedText(t *testing.T) {
	if _, err := MetricValue([]byte("held_claims two\n"), "held_claims", nil); err == nil {
		t.Fatal("a malformed scrape must be an error")
	}
}

func TestScrapeMetric(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(scrape))
	}))
	defer srv.Close()
	ctx := context.Background()
	if v, err := ScrapeMetric(ctx, srv.URL+"/metrics", "added_total", nil); err != nil || v != 7 {
		t.Fatalf("added_total = %v, %v; want 7", v, err)
	}
	if _, err := ScrapeMetric(ctx, srv.URL+"/metrics", "no_such_total", nil); err == nil {
		t.Fatal("a missing metric must be an error")
	}
	if _, err := ScrapeMetric(ctx, srv.URL+"/other", "added_total", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a failing endpoint must be an error, got %v", err)
	}
}
