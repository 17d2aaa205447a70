package soak

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The report says what leaked and names it, counts the faults by kind and
// the exits by cause, and links plots that exist.
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
		Account: Account{Leaked: []string{"pvc-1 (vol-1)"}},
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
