package main

import (
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// queueNameSeries finds the queue of each workqueue_depth series.
var queueNameSeries = regexp.MustCompile(`(?m)^workqueue_depth\{name="([^"]*)"\}`)

// The metrics endpoint serves what upstream's does: the handler's own
// scrape counters, and the work queues under upstream's names. With the
// default gates the only queues are upstream's: the library's claims,
// volumes and unsavedpvs, and the cloning protection's, also "claims".
func TestRunServesUpstreamsMetrics(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	addr := freeAddress(t)
	stop := startRun(t, api, provisioningDriver(), "--http-endpoint="+addr)

	eventually(t, "the controllers to watch claims", func() bool { return api.sawWatch("persistentvolumeclaims") })
	var body string
	eventually(t, "metrics", func() bool {
		var code int
		code, body = get("http://" + addr + "/metrics")
		return code == http.StatusOK
	})
	for _, want := range []string{
		`promhttp_metric_handler_requests_total{code="200"}`,
		"# TYPE promhttp_metric_handler_requests_in_flight gauge",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	queues := map[string]bool{}
	for _, m := range queueNameSeries.FindAllStringSubmatch(body, -1) {
		queues[m[1]] = true
	}
	if got, want := slices.Sorted(maps.Keys(queues)), []string{"claims", "unsavedpvs", "volumes"}; !slices.Equal(got, want) {
		t.Errorf("work queues %v, want upstream's %v", got, want)
	}

	if err := stop(true); err != nil {
		t.Fatalf("run: %v", err)
	}
}
