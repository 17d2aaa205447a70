package measure

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// scanAuditLines hands lines, written as an audit log, to observe.
func scanAuditLines(t *testing.T, lines []string, observe func(*framework.AuditEvent)) {
	t.Helper()
	if err := ScanAudit(writeLog(t, "audit.log", strings.Join(lines, "\n")+"\n"), observe); err != nil {
		t.Fatal(err)
	}
}

// An event's write delay runs from the time in its name, when client-go
// recorded it, to kube-apiserver receiving its create; a repeat written into
// an earlier event counts, and failed writes, other users' events and
// events.k8s.io's are left out.
func TestEventWritesCountTheSidecarsEventsAndHowLateTheyCame(t *testing.T) {
	const sidecar = "system:serviceaccount:default:csi-provisioner"
	recorded := time.Date(2026, 11, 26, 6, 42, 0, 0, time.UTC)
	create := func(user, group string, code int, delay time.Duration, claim string) string {
		name := fmt.Sprintf("%s.%x", claim, recorded.UnixNano())
		return fmt.Sprintf(`{"stage":"ResponseComplete","verb":"create","user":{"username":%q},"objectRef":{"resource":"events","apiGroup":%q,"name":%q},"responseStatus":{"code":%d},"requestReceivedTimestamp":%q}`,
			user, group, name, code, recorded.Add(delay).Format(time.RFC3339Nano))
	}
	lines := []string{
		create(sidecar, "", 201, 1*time.Second, "a"),
		create(sidecar, "", 201, 2*time.Second, "b"),
		create(sidecar, "", 201, 10*time.Minute, "c"),
		create(sidecar, "", 500, time.Hour, "d"),
		create("e2e-admin", "", 201, time.Hour, "e"),
		create(sidecar, "events.k8s.io", 201, time.Hour, "f"),
		`{"stage":"ResponseComplete","verb":"patch","user":{"username":"` + sidecar + `"},"objectRef":{"resource":"events","name":"a.1"},"responseStatus":{"code":200}}`,
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"` + sidecar + `"},"objectRef":{"resource":"events","name":"0f0e-uuid"},"responseStatus":{"code":201}}`,
	}
	tally := NewEventWriteTally(sidecar)
	scanAuditLines(t, lines, tally.Observe)
	got := tally.Result()
	got.Recorded = 9
	want := EventWrites{Recorded: 9, Created: 4, Counted: 1, DelayMedian: 2 * time.Second, DelayP90: 10 * time.Minute, DelayP99: 10 * time.Minute, DelayMax: 10 * time.Minute}
	if got != want {
		t.Errorf("event writes = %+v, want %+v", got, want)
	}
	if got.Unwritten() != 4 {
		t.Errorf("unwritten = %d, want 4", got.Unwritten())
	}
}

// Each event client-go records is logged once, whatever becomes of it.
func TestRecordedEventsAreCountedFromTheSidecarsLog(t *testing.T) {
	log := writeLog(t, "csi-provisioner.log", `I1126 06:42:09.454306   16095 event.go:395] "Event occurred" object="default/soak-1" kind="PersistentVolumeClaim" reason="Provisioning"
E1126 06:57:26.736510   16095 event.go:374] "Unable to write event (may retry after sleeping)" err="EOF"
I1126 06:42:10.462259   16095 event.go:395] "Event occurred" object="default/soak-1" kind="PersistentVolumeClaim" reason="ProvisioningSucceeded"
`)
	counts, err := CountLines(log, RecordsEvent)
	if err != nil {
		t.Fatal(err)
	}
	if counts[0] != 2 {
		t.Errorf("recorded events = %d, want 2", counts[0])
	}
}
