package soak

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The sidecar's answers are counted by code from the audit log, its
// ResponseComplete events only, other users' left out, and a line cut
// short by a killed kube-apiserver skipped.
func TestResponsesToCountsTheSidecarsAnswersByCode(t *testing.T) {
	const sidecar = "system:serviceaccount:default:csi-provisioner"
	lines := []string{
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"` + sidecar + `"},"objectRef":{"resource":"persistentvolumes"},"responseStatus":{"code":201}}`,
		`{"stage":"ResponseComplete","verb":"update","user":{"username":"` + sidecar + `"},"objectRef":{"resource":"persistentvolumeclaims"},"responseStatus":{"code":409}}`,
		`{"stage":"ResponseComplete","verb":"update","user":{"username":"` + sidecar + `"},"objectRef":{"resource":"persistentvolumeclaims"},"responseStatus":{"code":409}}`,
		`{"stage":"ResponseComplete","verb":"patch","user":{"username":"` + sidecar + `"},"objectRef":{"resource":"persistentvolumeclaims","subresource":"status"},"responseStatus":{"code":409}}`,
		`{"stage":"ResponseStarted","verb":"watch","user":{"username":"` + sidecar + `"},"responseStatus":{"code":200}}`,
		`{"stage":"ResponseComplete","verb":"get","user":{"username":"e2e-admin"},"responseStatus":{"code":404}}`,
		`{"stage":"ResponseComplete","verb":"get","user":{"username":"` + sidecar,
	}
	tally := responseTally{user: sidecar}
	scanAuditLines(t, lines, tally.observe)
	got := tally.result()
	want := []CodeCount{
		{Code: 201, Count: 1, Top: "create persistentvolumes 1"},
		{Code: 409, Count: 3, Top: "update persistentvolumeclaims 2, patch persistentvolumeclaims/status 1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("responses = %+v, want %+v", got, want)
	}
}

// Only client-go's "Watch closed" lines for an expired resourceVersion
// count, not other watch ends.
func TestOnlyExpiredWatchesCountAsExpired(t *testing.T) {
	log := `I1126 05:00:00.000000 1 reflector.go:100] "Watch closed" reflector="informers.go:1" type="*v1.PersistentVolumeClaim" err="too old resource version: 10 (20)"
I1126 05:00:01.000000 1 reflector.go:100] "Watch closed with unexpected EOF" reflector="informers.go:1" err="unexpected EOF"
I1126 05:00:02.000000 1 reflector.go:100] "Watch closed" reflector="informers.go:1" type="*v1.PersistentVolume" err="The resourceVersion for the provided watch is too old."
`
	if n := countLogLines(t, log, isWatchExpired); n != 2 {
		t.Errorf("expired watches = %d, want 2", n)
	}
}

// countLogLines counts the lines of log, written as a sidecar's log file,
// that match.
func countLogLines(t *testing.T, log string, match func([]byte) bool) int {
	t.Helper()
	path := filepath.Join(t.TempDir(), "csi-provisioner.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	counts, err := measure.CountLines(path, match)
	if err != nil {
		t.Fatal(err)
	}
	return counts[0]
}

func TestAccountIsCleanOnlyWithNothingLeftAndNothingMadeTwice(t *testing.T) {
	if !(Account{}).Clean() {
		t.Error("an empty account is not clean")
	}
	for name, a := range map[string]Account{
		"leaked":      {Leaked: []string{"v"}},
		"stuck":       {StuckDuringRun: []string{"c"}},
		"claim left":  {ClaimsLeft: []string{"c"}},
		"PV left":     {PVsLeft: []string{"p"}},
		"twice":       {Twice: []string{"v"}},
		"not settled": {NotSettled: "timeout"},
	} {
		if a.Clean() {
			t.Errorf("%s: clean", name)
		}
	}
}

// scanAuditLines hands lines, written as an audit log, to observe.
func scanAuditLines(t *testing.T, lines []string, observe func(*framework.AuditEvent)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := scanAudit(path, observe); err != nil {
		t.Fatal(err)
	}
}
