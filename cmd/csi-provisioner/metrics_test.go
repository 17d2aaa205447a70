package main

import (
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
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

// The gauges the shipped alerts read are served from the start: the
// leading gauge (1 here, without leader election, once the controllers
// run) and those computed from the caches when scraped, at 0.
func TestRunServesTheGaugesTheAlertsRead(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	addr := freeAddress(t)
	stop := startRun(t, api, provisioningDriver(), "--http-endpoint="+addr)

	leading := `csi_provisioner_leader_election_leading{driver_name="` + testDriverName + `"} 1`
	var body string
	eventually(t, "the leading gauge at 1", func() bool {
		var code int
		code, body = get("http://" + addr + "/metrics")
		return code == http.StatusOK && strings.Contains(body, leading)
	})
	for _, want := range []string{
		"csi_provisioner_pending_claims 0",
		"csi_provisioner_oldest_pending_claim_age_seconds 0",
		"csi_provisioner_provisioning_protection_oldest_hold_age_seconds 0",
		"csi_provisioner_pvc_protection_oldest_hold_age_seconds 0",
		"csi_provisioner_pv_protection_oldest_hold_age_seconds 0",
	} {
		if !strings.Contains(body, "\n"+want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	if err := stop(true); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// A replica serves its driver's leading gauge at 0 before it leads, so
// that no leader shows as every replica at 0 rather than as no series.
func TestLeadingGaugeStartsAtZero(t *testing.T) {
	m := newRunMetrics()
	g := leadingGauge(m, testDriverName)
	if got := testutil.Metric(t, m.registry, "csi_provisioner_leader_election_leading", "driver_name", testDriverName); got != 0 {
		t.Errorf("leading %v before the controllers run, want 0", got)
	}
	g.Set(1)
	if got := testutil.Metric(t, m.registry, "csi_provisioner_leader_election_leading", "driver_name", testDriverName); got != 1 {
		t.Errorf("leading %v while they run, want 1", got)
	}
}
