package soak

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// The report says what leaked and names it, counts the faults by kind and
// the exits by cause and the events never written, and links plots that
// exist.
func TestReportNamesWhatLeakedAndDrawsItsPlots(t *testing.T) {
	res := &Result{
		Options: Options{Duration: 10 * time.Minute, Seed: 7, Workers: 2, FaultInterval: time.Minute, SampleInterval: 10 * time.Second, CreateDelay: time.Second, StuckAfter: 5 * time.Minute},
		Started: time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC),
		Churned: 10 * time.Minute,
		Settled: time.Minute,
		Claims:  []Claim{{Name: "soak-0-0", Created: time.Second, Deleted: 2 * time.Second, Gone: 10 * time.Second}},
		Faults: []Fault{
			{Kind: faultDriverKill, At: 2 * time.Minute, Healed: 3 * time.Second, Detail: "down 3s"},
			{Kind: faultDriverKill, At: 5 * time.Minute, Healed: 2 * time.Second, Detail: "down 2s"},
		},
		Exits:   []Exit{{Process: "csi-provisioner", At: 2 * time.Minute, Cause: "exit status 255"}},
		Account: Account{Leaked: []string{"pvc-1 (vol-1)"}, Events: measure.EventWrites{Recorded: 10, Created: 4, Counted: 1, DelayMax: 90 * time.Second}},
	}
	for m := range 10 {
		res.Samples = append(res.Samples, Sample{At: time.Duration(m) * time.Minute, APIUp: true, Claims: m, PVs: m, Volumes: m,
			Replicas: []ReplicaSample{{Pid: 10, Up: true, RSSBytes: 40 << 20, Goroutines: 100}, {Pid: 11, Up: true, RSSBytes: 30 << 20, Goroutines: 90}}})
	}
	dir := t.TempDir()
	if err := WriteReport(res, dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| leaked volumes (backend volumes no PV names) | 1 |",
		"- Leaked: pvc-1 (vol-1)",
		"| driver SIGKILL | 2 | 3s |",
		"| csi-provisioner | exit status 255 | 1 |",
		"SOAK_ARGS=--seed=7",
		"| never written (dropped from a full queue, or queued when a sidecar was killed) | 5 |",
		"median / 90th / 99th percentile / max | 0s / 0s / 0s / 1m30s |",
		"distinct events written (goal: at least 99%) | not measured",
		"over the second half of phases of 20m0s or more | no leader phase long enough |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	for _, png := range []string{"rss.png", "heap.png", "goroutines.png", "claims.png"} {
		if !strings.Contains(string(md), "("+png+")") {
			t.Errorf("report.md does not link %s", png)
		}
		if _, err := os.Stat(filepath.Join(dir, png)); err != nil {
			t.Errorf("plot %s: %v", png, err)
		}
	}
}

// A report written again reads the events and kube-apiserver's answers
// from the run's logs, named in result.json relative to its folder.
func TestRewriteReportReadsTheRunsLogsAgain(t *testing.T) {
	const sidecar = "system:serviceaccount:default:csi-provisioner"
	dir := t.TempDir()
	res := &Result{
		Options: Options{Duration: 10 * time.Minute, SampleInterval: 10 * time.Second},
		Logs:    RunLogs{AuditLog: "work/audit.log", SidecarUser: sidecar, SidecarLogs: []string{"work/csi-provisioner.log"}, Events: "events.json"},
	}
	files := map[string]string{
		"work/audit.log": `{"stage":"ResponseComplete","verb":"create","user":{"username":"` + sidecar + `"},"objectRef":{"resource":"events","name":"soak-1.1"},"responseStatus":{"code":201}}` + "\n",
		"work/csi-provisioner.log": `I1126 06:42:09.454306 1 event.go:395] "Event occurred" object="default/soak-1" kind="PersistentVolumeClaim" reason="Provisioning" message="p"` + "\n" +
			`I1126 06:42:10.454306 1 event.go:395] "Event occurred" object="default/soak-1" kind="PersistentVolumeClaim" reason="ProvisioningSucceeded" message="s"` + "\n",
		"events.json": `[{"involvedObject":{"kind":"PersistentVolumeClaim","namespace":"default","name":"soak-1"},"reason":"Provisioning","message":"p"}]`,
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RewriteReport(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| recorded (the sidecars' logs) | 2 |",
		"| written: created / counted into an earlier event | 1 / 0 |",
		"| 201 | 1 | create events 1 |",
		"| distinct (object, reason, message): recorded / held by kube-apiserver at the end | 2 / 1 |",
		"distinct events written, by object, reason and message (goal: at least 99%) | 50.0% (1 of 2): not met |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestRewriteReportRefusesAResultThatNamesNoLogs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"claims":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RewriteReport(dir); err == nil || !strings.Contains(err.Error(), "names no logs") {
		t.Errorf("RewriteReport = %v, want an error saying the result names no logs", err)
	}
}
