package measure

import (
	"strings"
	"testing"
)

// apiserverScrape is kube-apiserver's response size histogram as it
// serves it: buckets, _sum and _count per series.
const apiserverScrape = `# HELP apiserver_response_sizes [STABLE] Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.
# TYPE apiserver_response_sizes histogram
apiserver_response_sizes_bucket{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1",le="1000"} 1
apiserver_response_sizes_bucket{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1",le="+Inf"} 3
apiserver_response_sizes_sum{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1500
apiserver_response_sizes_count{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 3
apiserver_response_sizes_bucket{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1",le="+Inf"} 2
apiserver_response_sizes_sum{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 2.5e+03
apiserver_response_sizes_count{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 2
apiserver_response_sizes_bucket{component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1",le="+Inf"} 1
apiserver_response_sizes_sum{component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 99
apiserver_response_sizes_count{component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 1
apiserver_response_sizes_bucket{component="apiserver",group="",resource="persistentvolumeclaims",scope="namespace",subresource="",verb="LIST",version="v1",le="+Inf"} 1
apiserver_response_sizes_sum{component="apiserver",group="",resource="persistentvolumeclaims",scope="namespace",subresource="",verb="LIST",version="v1"} 77
apiserver_response_sizes_count{component="apiserver",group="",resource="persistentvolumeclaims",scope="namespace",subresource="",verb="LIST",version="v1"} 1
apiserver_response_sizes_bucket{component="apiserver",group="",resource="nodes",scope="resource",subresource="pods",verb="LIST",version="v1",le="+Inf"} 1
apiserver_response_sizes_sum{component="apiserver",group="",resource="nodes",scope="resource",subresource="pods",verb="LIST",version="v1"} 10000
apiserver_response_sizes_count{component="apiserver",group="",resource="nodes",scope="resource",subresource="pods",verb="LIST",version="v1"} 1
apiserver_response_sizes_bucket{component="apiserver",group="metrics.k8s.io",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1beta1",le="+Inf"} 1
apiserver_response_sizes_sum{component="apiserver",group="metrics.k8s.io",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1beta1"} 20000
apiserver_response_sizes_count{component="apiserver",group="metrics.k8s.io",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1beta1"} 1
# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 3
# HELP workqueue_depth [ALPHA] Current depth of workqueue
# TYPE workqueue_depth gauge
`

func TestSumAddsMatchingSeriesOnly(t *testing.T) {
	m, err := ParseMetrics([]byte(apiserverScrape))
	if err != nil {
		t.Fatal(err)
	}
	podLists := map[string]string{"group": "", "resource": "pods", "verb": "LIST"}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		// subresource="pods" of nodes and pods of another group are not
		// pod LISTs.
		{"apiserver_response_sizes_sum", podLists, 4000},
		{"apiserver_response_sizes_count", podLists, 5},
		{"apiserver_response_sizes_sum", map[string]string{"subresource": "pods"}, 10000},
		{"apiserver_response_sizes_sum", map[string]string{"resource": "pods", "verb": "LIST"}, 24000},
		{"apiserver_response_sizes_sum", map[string]string{"resource": "secrets"}, 0},
		{"apiserver_request_total", map[string]string{"resource": "pods"}, 3},
	} {
		got, err := m.Sum(tc.name, tc.labels)
		if err != nil {
			t.Errorf("Sum(%s, %v): %v", tc.name, tc.labels, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Sum(%s, %v) = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
}

// The old reader matched labels as substrings: subresource="pods" passed
// for resource="pods".
func TestSumDoesNotCountSubresourcePodsAsPods(t *testing.T) {
	m, err := ParseMetrics([]byte(`# TYPE apiserver_response_sizes histogram
apiserver_response_sizes_sum{group="",resource="nodes",subresource="pods",verb="LIST"} 10000
apiserver_response_sizes_count{group="",resource="nodes",subresource="pods",verb="LIST"} 1
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Sum("apiserver_response_sizes_sum", map[string]string{"resource": "pods", "verb": "LIST"})
	if err != nil || got != 0 {
		t.Errorf("pod LIST bytes = %v, %v; want 0", got, err)
	}
}

func TestMissingMetricIsAnError(t *testing.T) {
	m, err := ParseMetrics([]byte(apiserverScrape))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"apiserver_request_sizes_sum",
		// A counter has no _sum.
		"apiserver_request_total_sum",
		// A family whose only lines are HELP and TYPE has no series.
		"workqueue_depth",
	} {
		if got, err := m.Sum(name, nil); err == nil {
			t.Errorf("Sum(%s) = %v, want an error", name, got)
		}
		if got, err := m.Value(name); err == nil {
			t.Errorf("Value(%s) = %v, want an error", name, got)
		}
	}
	if got, err := m.Value("apiserver_response_sizes_sum"); err == nil {
		t.Errorf("Value of a metric with several series = %v, want an error", got)
	}
}

func TestParseMetricsRejectsMalformedText(t *testing.T) {
	for _, text := range []string{
		"workqueue_depth{name=\"claims\"} three\n",
		"workqueue_depth{name=\"claims\" 3\n",
	} {
		if _, err := ParseMetrics([]byte(text)); err == nil || !strings.Contains(err.Error(), "parse metrics") {
			t.Errorf("ParseMetrics(%q): %v, want a parse error", text, err)
		}
	}
}

func TestValueAndSumOfTheSidecarsScrape(t *testing.T) {
	m, err := ParseMetrics([]byte(`# HELP go_memstats_heap_inuse_bytes Number of heap bytes that are in use.
# TYPE go_memstats_heap_inuse_bytes gauge
go_memstats_heap_inuse_bytes 1.03686144e+08
go_memstats_heap_inuse_bytes_total 7
# HELP workqueue_depth [ALPHA] Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="claims"} 3
workqueue_depth{name="volumes"} 0
workqueue_depth{name="pv-protection"} 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := m.Value("go_memstats_heap_inuse_bytes"); err != nil || v != 103686144 {
		t.Errorf("heap in use = %v, %v; want 103686144", v, err)
	}
	if _, err := m.Value("go_memstats_sys_bytes"); err == nil {
		t.Error("a missing metric: want an error")
	}
	if _, err := m.GoMemory(); err == nil {
		t.Error("GoMemory without go_memstats_sys_bytes: want an error")
	}
	if v, err := m.Sum("workqueue_depth", nil); err != nil || v != 5 {
		t.Errorf("queue depth = %v, %v; want 5", v, err)
	}
	if v, err := m.Sum("workqueue_depth", map[string]string{"name": "claims"}); err != nil || v != 3 {
		t.Errorf("depth of the claims queue = %v, %v; want 3", v, err)
	}
}

// A sidecar whose scrape lacks workqueue_depth is not idle.
func TestSumOfAMissingMetricIsAnError(t *testing.T) {
	m, err := ParseMetrics([]byte("go_goroutines 12\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := m.Sum("workqueue_depth", nil); err == nil {
		t.Errorf("queue depth = %v; want an error", v)
	}
}
