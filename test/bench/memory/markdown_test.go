package memory_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
)

func TestMemoryGoalLine(t *testing.T) {
	for _, tc := range []struct {
		peaks map[string][]float64
		want  string
	}{
		{map[string][]float64{"gate on": {120, 131.26}, "gate off": {118}}, "Goal: peak RSS under 150 MiB: **met** (worst run 131.3 MiB)."},
		// One run over the goal is enough to miss it.
		{map[string][]float64{"gate on": {120}, "gate off": {118, 150.5}}, "Goal: peak RSS under 150 MiB: **not met** (worst run 150.5 MiB)."},
		{map[string][]float64{"gate on": {150}}, "Goal: peak RSS under 150 MiB: **not met** (worst run 150.0 MiB)."},
		{nil, "Goal: peak RSS under 150 MiB: not measured (no run read the sidecar's memory)."},
	} {
		if md := benchtest.MemoryReport(tc.peaks).Markdown(); !strings.Contains(md, tc.want+"\n") {
			t.Errorf("peaks %v: the report lacks the goal line %q:\n%s", tc.peaks, tc.want, md)
		}
	}
}

func TestMemoryMarkdown(t *testing.T) {
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {120, 140, 130}, "gate off": {110}})
	md := r.Markdown()
	benchtest.MustContain(t, "report", md,
		"## Sidecar memory and CPU with 2,000 claims and PVs cached",
		"| gate on | 130.0 MiB (120.0–140.0) |",
		"| gate off | 110.0 MiB |",
		"1 run per variant",
		"### Runs",
		"| 3 | gate on | 3 |",
	)
	if r.HasProblems() {
		t.Error("HasProblems for clean runs")
	}
}

func TestMemoryHasProblems(t *testing.T) {
	for name, spoil := range map[string]func(*memory.Report){
		"error":         func(r *memory.Report) { r.Runs[0].Problems = []string{"sidecar exited"} },
		"not all Bound": func(r *memory.Report) { r.Runs[0].BatchBound = 99 },
		"PV left":       func(r *memory.Report) { r.Runs[0].PVsLeft = 1 },
		"claim left":    func(r *memory.Report) { r.Runs[0].ClaimsLeft = 1 },
		"driver volume": func(r *memory.Report) { r.Runs[0].VolumesLeft = 1 },
		"setup problem": func(r *memory.Report) { r.Setup.Problems = []string{"9 claims not Bound"} },
	} {
		r := benchtest.MemoryReport(map[string][]float64{"gate on": {120}})
		spoil(r)
		if !r.HasProblems() {
			t.Errorf("%s: HasProblems = false", name)
		}
	}
}

func TestPeakRSSByVariant(t *testing.T) {
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {120, 140}, "gate off": {110}})
	// A run that never read the memory is left out, not plotted as zero.
	r.Runs = append(r.Runs, &memory.SidecarRun{Variant: "gate off", Run: 2, Problems: []string{"did not start"}})
	got := r.PeakRSSByVariant()
	if !slices.Equal(got["gate on"], []float64{120, 140}) || !slices.Equal(got["gate off"], []float64{110}) || len(got) != 2 {
		t.Errorf("PeakRSSByVariant = %v", got)
	}
}

func TestMemoryAgainstTheBaseline(t *testing.T) {
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {150, 170}, "gate off": {140}, bench.BaselineName: {200}}, benchtest.Baseline)
	if measured, _ := r.GoalSummary(); !strings.HasPrefix(measured, "worst run 170.0 MiB") {
		t.Errorf("goal summary %q, want the worst run 170 (the baseline's 200 is not ours)", measured)
	}
	got := r.BaselineRatios()
	if len(got) != 2 {
		t.Fatalf("ratios %v, want gate on and gate off", got)
	}
	benchtest.Approx(t, "gate on peak RSS", got[0].PeakRSS, 0.8)
	benchtest.Approx(t, "gate off peak RSS", got[1].PeakRSS, 0.7)
	md := r.Markdown()
	benchtest.MustContain(t, "memory report", md,
		"| variant | peak RSS | RSS at end | peak RSS when idle | Go heap in use at end | CPU to sync | CPU in all | sync time | peak RSS / baseline |",
		"| gate on | 160.0 MiB (150.0–170.0) |",
		"| 0.80× |",
		"it runs under the shipped RBAC (a superset of upstream's own",
		"Goal against the baseline: peak RSS of gate on (shipped settings) ≤ 0.8 × baseline, 2,000 claims and PVs cached: **met** (0.80 (160.0 MiB vs 200.0 MiB), medians).",
		"Goal: peak RSS under 150 MiB (every run of ours; the baseline is not judged by it): **not met** (worst run 170.0 MiB).",
	)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"vsBaseline":[{"variant":"gate on","peakRSS":0.8`) || !strings.Contains(string(data), `"shipped":"gate on"`) {
		t.Errorf("memory.json lacks the ratios or the shipped variant: %s", data)
	}
}

func TestShippedSettingsPointAtAVariant(t *testing.T) {
	o := memory.DefaultOptions()
	found := false
	for _, v := range o.Variants {
		found = found || v.Name == o.Shipped
	}
	if !found {
		t.Errorf("Shipped %q is none of the memory variants", o.Shipped)
	}
	// Pointing it elsewhere moves the goal.
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {190}, "gate off": {150}, bench.BaselineName: {200}}, benchtest.Baseline)
	if g, _ := r.BaselineGoal(); g.Met {
		t.Errorf("gate on at 0.95 of the baseline met the goal: %+v", g)
	}
	r.Shipped = "gate off"
	if g, _ := r.BaselineGoal(); !g.Met || !strings.Contains(g.Goal, "gate off (shipped settings)") {
		t.Errorf("gate off at 0.75 of the baseline: %+v", g)
	}
}
