package provisioning

import (
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const testSidecarUser = "system:serviceaccount:default:csi-provisioner"

func record(at time.Time, user, agent, verb, resource, subresource string, code int) framework.AuditEvent {
	return framework.AuditEvent{
		Verb:            verb,
		User:            framework.AuditUser{Username: user},
		UserAgent:       agent,
		ObjectRef:       &framework.AuditObjectRef{Resource: resource, Subresource: subresource},
		ResponseStatus:  &framework.AuditResponseStatus{Code: code},
		RequestReceived: at,
	}
}

func TestCountPhaseGroupsByClientAndWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	records := []framework.AuditEvent{
		record(t0, testSidecarUser, "csi-provisioner/v1", "patch", "persistentvolumeclaims", "", 200),
		record(t0.Add(time.Second), testSidecarUser, "csi-provisioner/v1", "create", "persistentvolumes", "", 201),
		record(t0.Add(time.Second), testSidecarUser, "csi-provisioner/v1", "delete", "persistentvolumes", "", 404),
		record(t0.Add(time.Second), "e2e-admin", "kube-controller-manager/v1.36.3 (linux/amd64) kubernetes/abc/persistent-volume-binder", "update", "persistentvolumeclaims", "status", 200),
		record(t0.Add(time.Second), "e2e-admin", measure.BenchUserAgent, "create", "persistentvolumeclaims", "", 201),
		// Outside the window.
		record(t0.Add(-time.Second), testSidecarUser, "csi-provisioner/v1", "list", "persistentvolumeclaims", "", 200),
		record(t0.Add(2*time.Second), testSidecarUser, "csi-provisioner/v1", "get", "persistentvolumeclaims", "", 200),
	}
	p := countPhase(records, measure.Window{From: t0, To: t0.Add(2 * time.Second)}, testSidecarUser)
	want := map[string]int{"patch persistentvolumeclaims": 1, "create persistentvolumes": 1, "delete persistentvolumes": 1}
	if len(p.Sidecar) != len(want) {
		t.Errorf("sidecar requests = %v, want %v", p.Sidecar, want)
	}
	for k, n := range want {
		if p.Sidecar[k] != n {
			t.Errorf("sidecar %q = %d, want %d", k, p.Sidecar[k], n)
		}
	}
	if p.SidecarErrors["delete persistentvolumes 404"] != 1 || len(p.SidecarErrors) != 1 {
		t.Errorf("sidecar errors = %v, want one 404 delete", p.SidecarErrors)
	}
	if n, w := p.SidecarTotals(); n != 3 || w != 3 {
		t.Errorf("sidecar totals = %d requests, %d writes, want 3, 3", n, w)
	}
	if c := p.Clients[measure.ClientKCM]; c.Requests != 1 || c.Writes != 1 {
		t.Errorf("kube-controller-manager = %+v, want 1 write", c)
	}
	if c := p.Clients[measure.ClientBench]; c.Requests != 1 {
		t.Errorf("benchmark = %+v, want 1 request", c)
	}
}

func TestSidecarRateReplaysTheTokenBucket(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	limit := RateLimit{QPS: 100, Burst: 20}
	var records []framework.AuditEvent
	// 20 at once use the burst; then 100 more at 100/s ride on the refill.
	for range 20 {
		records = append(records, record(t0, testSidecarUser, "csi-provisioner/v1", "patch", "persistentvolumeclaims", "", 200))
	}
	for i := range 100 {
		records = append(records, record(t0.Add(time.Duration(i+1)*10*time.Millisecond), testSidecarUser, "csi-provisioner/v1", "patch", "persistentvolumeclaims", "", 200))
	}
	mean, atLimit := sidecarRate(records, measure.Window{From: t0, To: t0.Add(time.Second + 10*time.Millisecond)}, testSidecarUser, limit, everyRequest)
	if mean < 110 || mean > 125 {
		t.Errorf("mean rate = %.1f/s, want 120 requests over ~1 s", mean)
	}
	// All but the first dozen of the burst found the bucket nearly empty.
	if atLimit < 0.85 || atLimit > 0.95 {
		t.Errorf("share at the limit = %.2f, want about 0.9", atLimit)
	}

	// A client at a tenth of its limit never comes near it.
	records = records[:0]
	for i := range 10 {
		records = append(records, record(t0.Add(time.Duration(i)*100*time.Millisecond), testSidecarUser, "csi-provisioner/v1", "patch", "persistentvolumeclaims", "", 200))
	}
	if _, atLimit := sidecarRate(records, measure.Window{From: t0, To: t0.Add(time.Second)}, testSidecarUser, limit, everyRequest); atLimit != 0 {
		t.Errorf("share at the limit of an idle client = %.2f, want 0", atLimit)
	}
}

func TestSidecarLimitReadsTheLastFlag(t *testing.T) {
	l := SidecarLimit([]string{"--kube-api-qps=200", "--kube-api-burst=400", "--kube-api-qps=50"})
	if l.QPS != 50 || l.Burst != 400 {
		t.Errorf("sidecarLimit = %+v, want QPS 50, burst 400", l)
	}
	if l := SidecarLimit(nil); l.QPS != 5 || l.Burst != 10 {
		t.Errorf("default limit = %+v, want the sidecar's 5 / 10", l)
	}
}

// everyRequest counts every request as the main client's.
func everyRequest(*framework.AuditEvent) bool { return true }

func TestOnlyTheMainClientsRequestsMeetItsLimit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	limit := RateLimit{QPS: 100, Burst: 20}
	var records []framework.AuditEvent
	// 50 PV creations a second, well under the limit, and as many events and
	// claim finalizer writes at once: 150 requests a second in all.
	for i := range 50 {
		at := t0.Add(time.Duration(i) * 20 * time.Millisecond)
		records = append(records,
			record(at, testSidecarUser, "csi-provisioner/v1", "create", "persistentvolumes", "", 201),
			record(at, testSidecarUser, "csi-provisioner/v1", "create", "events", "", 201),
			record(at, testSidecarUser, "csi-provisioner/v1", "update", "persistentvolumeclaims", "", 200))
	}
	w := measure.Window{From: t0, To: t0.Add(time.Second)}
	ours := mainClientOf(bench.Variant{Name: "gate on"})
	mean, atLimit := sidecarRate(records, w, testSidecarUser, limit, ours)
	if mean < 149 || mean > 151 {
		t.Errorf("mean rate = %.1f/s, want all 150 requests counted", mean)
	}
	if atLimit != 0 {
		t.Errorf("ours: share at the main client's limit = %.2f, want 0: its events and protection writes have clients of their own", atLimit)
	}
	if _, atLimit := sidecarRate(records, w, testSidecarUser, limit, mainClientOf(bench.Baseline(""))); atLimit < 0.5 {
		t.Errorf("baseline: share at the limit = %.2f, want most: upstream sends all 150 a second on one client", atLimit)
	}
}
