package measure

import (
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A watch's final event replaces its ResponseStarted one; a line cut short
// is skipped.
func TestReadAuditKeepsOneEventPerRequest(t *testing.T) {
	path := writeLog(t, "audit.log", `{"auditID":"1","stage":"ResponseStarted","verb":"watch","requestReceivedTimestamp":"2026-01-01T00:00:00.000001Z"}
{"auditID":"2","stage":"ResponseComplete","verb":"create","responseStatus":{"code":201}}
{"auditID":"1","stage":"ResponseComplete","verb":"watch","responseStatus":{"code":200}}
{"auditID":"3","stage":"ResponseStarted","verb":"watch"}
{"auditID":"4","stage":"Resp
`)
	got, err := ReadAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].AuditID != "1" || StatusCode(&got[0]) != 200 || got[1].AuditID != "2" || got[2].Stage != framework.AuditStageResponseStarted {
		t.Errorf("events %+v, want the watch's final event, the create, and the watch still open", got)
	}
	if _, err := ReadAudit(path + ".missing"); err == nil {
		t.Error("a missing audit log: want an error")
	}
}

func TestClientOfTellsTheSidecarKCMAndTheBenchmarkApart(t *testing.T) {
	const sidecar = "system:serviceaccount:default:csi-provisioner"
	for _, tc := range []struct {
		user, agent, want string
	}{
		{sidecar, "csi-provisioner/v1", ClientSidecar},
		{"e2e-admin", "kube-controller-manager/v1.36.3 (linux/amd64) kubernetes/abc/persistent-volume-binder", ClientKCM},
		{"e2e-admin", BenchUserAgent, ClientBench},
		{"e2e-admin", "kubectl/v1.36", ClientOther},
	} {
		ev := &framework.AuditEvent{User: framework.AuditUser{Username: tc.user}, UserAgent: tc.agent}
		if got := ClientOf(ev, sidecar); got != tc.want {
			t.Errorf("%s with %q: %s, want %s", tc.user, tc.agent, got, tc.want)
		}
	}
}

func TestRequestKeyNamesGroupAndSubresource(t *testing.T) {
	for _, tc := range []struct {
		ref  *framework.AuditObjectRef
		uri  string
		want string
	}{
		{&framework.AuditObjectRef{Resource: "persistentvolumeclaims"}, "", "patch persistentvolumeclaims"},
		{&framework.AuditObjectRef{Resource: "leases", APIGroup: "coordination.k8s.io"}, "", "patch leases.coordination.k8s.io"},
		{&framework.AuditObjectRef{Resource: "persistentvolumeclaims", Subresource: "status"}, "", "patch persistentvolumeclaims/status"},
		{nil, "/api?timeout=32s", "patch /api"},
	} {
		key := RequestKey(&framework.AuditEvent{Verb: "patch", ObjectRef: tc.ref, RequestURI: tc.uri})
		if key != tc.want {
			t.Errorf("RequestKey = %q, want %q", key, tc.want)
		}
		if verb, res := SplitKey(key); verb+" "+res != key || !IsWrite(verb) {
			t.Errorf("SplitKey(%q) = %q, %q", key, verb, res)
		}
	}
	w := Window{From: time.Unix(10, 0), To: time.Unix(20, 0)}
	if !w.Contains(w.From) || w.Contains(w.To) {
		t.Errorf("window %v is not half-open", w)
	}
}
