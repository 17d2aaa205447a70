package memory_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
)

func TestMemoryBudgetIsJudgedByTheWorstRun(t *testing.T) {
	for _, tc := range []struct {
		peaks map[string][]float64
		want  string
	}{
		{map[string][]float64{"gate on": {120, 131.26}, "gate off": {118}}, "- sidecar peak RSS with 2,000 claims and PVs cached < 150 MiB: **met** (worst run 131.3 MiB ("},
		// One run over the goal is enough to miss it.
		{map[string][]float64{"gate on": {120}, "gate off": {118, 150.5}}, "- sidecar peak RSS with 2,000 claims and PVs cached < 150 MiB: **not met** (worst run 150.5 MiB ("},
		{map[string][]float64{"gate on": {150}}, "- sidecar peak RSS with 2,000 claims and PVs cached < 150 MiB: **not met** (worst run 150.0 MiB ("},
		{nil, "- sidecar peak RSS with 2,000 claims and PVs cached < 150 MiB: not measured\n"},
	} {
		if md := benchtest.MemoryReport(tc.peaks).Markdown(); !strings.Contains(md, tc.want) {
			t.Errorf("peaks %v: the report lacks the goal line %q:\n%s", tc.peaks, tc.want, md)
		}
	}
}

func TestMemoryMarkdownOfOneSize(t *testing.T) {
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {120, 140, 130}, "gate off": {110}})
	md := r.Markdown()
	benchtest.MustContain(t, "report", md,
		"## Sidecar memory and CPU with 2,000 claims and PVs cached",
		"### With 2,000 claims and PVs cached",
		"| gate on | 130.0 MiB (120.0–140.0) |",
		"| gate off | 110.0 MiB |",
		"1 run per variant",
		"### Runs",
		"| 3 | 2,000 | gate on | 3 |",
		"- peak RSS slope of gate on (shipped settings), least squares over 2,000 cached pairs, ≤ 2 KiB per pair: not measured (needs runs at two sizes or more)",
	)
	// One size has no line to draw.
	if strings.Contains(md, "### Peak RSS over the number of cached pairs") {
		t.Errorf("a report of one size has the scaling table:\n%s", md)
	}
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

// A limit too small failing is what the sweep is for, not a problem of
// the benchmark.
func TestSweepFailuresAreNoProblems(t *testing.T) {
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {120}})
	r.Limits = &memory.LimitSweep{Tries: []*memory.LimitTry{{LimitMiB: 64, Run: &memory.SidecarRun{Problems: []string{"exited unexpectedly (signal: killed)"}}}}}
	if r.HasProblems() {
		t.Error("HasProblems for a sweep run killed at its limit")
	}
}

func TestRunsThatReadNoMemoryAreLeftOut(t *testing.T) {
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {120, 140}, "gate off": {110}})
	// Not plotted or counted as zero.
	r.Runs = append(r.Runs, &memory.SidecarRun{Variant: "gate off", Run: 2, Problems: []string{"did not start"}})
	if got := r.PeakRSSAt("gate off", 2000); got.N != 1 || got.Median != 110 {
		t.Errorf("gate off's peak RSS %+v, want the one run of 110 MiB", got)
	}
}

func TestMemoryAgainstTheBaseline(t *testing.T) {
	r := benchtest.MemoryReport(map[string][]float64{"gate on": {150, 170}, "gate off": {140}, bench.BaselineName: {200}}, benchtest.Baseline)
	if g := memory.GoalNamed(t, r, "sidecar peak RSS"); !strings.HasPrefix(g.Measured, "worst run 170.0 MiB") {
		t.Errorf("budget %q, want the worst run 170 (the baseline's 200 is not ours)", g.Measured)
	}
	got := r.BaselineRatios()
	if len(got) != 2 {
		t.Fatalf("ratios %v, want gate on and gate off", got)
	}
	benchtest.Approx(t, "gate on peak RSS", got[0].PeakRSS, 0.8)
	benchtest.Approx(t, "gate off peak RSS", got[1].PeakRSS, 0.7)
	md := r.Markdown()
	benchtest.MustContain(t, "memory report", md,
		"| variant | peak RSS | RSS at end | peak RSS when idle | Go heap in use at end | CPU to sync | CPU in all | sync time | first claim Bound | peak RSS / baseline | first claim / baseline |",
		"| gate on | 160.0 MiB (150.0–170.0) |",
		"| 0.80× |",
		"it runs under the shipped RBAC (a superset of upstream's own",
		"- peak RSS of gate on (shipped settings) ≤ 0.8 × baseline, 2,000 claims and PVs cached: **met** (0.80 (160.0 MiB vs 200.0 MiB))",
		"- sidecar peak RSS with 2,000 claims and PVs cached < 150 MiB: **not met** (worst run 170.0 MiB",
	)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	benchtest.MustContain(t, "memory.json", string(data), `"vsBaseline":[{"variant":"gate on","pairs":2000,"peakRSS":0.8`, `"shipped":"gate on"`, `"goals":[`)
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
	if g := memory.GoalNamed(t, r, "peak RSS of gate on (shipped settings) ≤ 0.8"); g.Met {
		t.Errorf("gate on at 0.95 of the baseline met the goal: %+v", g)
	}
	r.Shipped = "gate off"
	if g := memory.GoalNamed(t, r, "peak RSS of gate off (shipped settings) ≤ 0.8"); !g.Met {
		t.Errorf("gate off at 0.75 of the baseline: %+v", g)
	}
}

func TestMemoryMarkdownOverSizes(t *testing.T) {
	var runs []at
	for _, n := range []int{10000, 25000, 50000} {
		runs = append(runs,
			at{"gate on", n, []float64{line(100, 1.5, n)}, 2},
			at{"gate off", n, []float64{line(90, 1.5, n)}, 2},
		)
	}
	r := scaledReport(runs)
	r.Setup.Fills = []memory.Fill{{Pairs: 10000, Added: 10000, Create: 20e9}, {Pairs: 50000, Added: 40000, Create: 80e9, Stack: memory.StackMemory{EtcdDBSize: 300 << 20, EtcdQuota: 2 << 30}}}
	md := r.Markdown()
	benchtest.MustContain(t, "report", md,
		"## Sidecar memory and CPU with 10,000 to 50,000 claims and PVs cached",
		"### Peak RSS over the number of cached pairs",
		"| variant | 10,000 | 25,000 | 50,000 | slope per pair | line at 0 pairs | R² | residuals (median − line) |",
		"| gate on | 114.6 MiB | 136.6 MiB | 173.2 MiB | 1.50 KiB | 100.0 MiB | 1.0000 | 10,000: +0.0 MiB, 25,000: +0.0 MiB, 50,000: +0.0 MiB |",
		"### With 10,000 claims and PVs cached",
		"### With 50,000 claims and PVs cached",
		"| 10,000 | 20.00 s | 500 |",
		"| 50,000 | 80.00 s | 500 |",
		"the database took 15% of it",
		"- peak RSS slope of gate on (shipped settings), least squares over 10,000, 25,000, 50,000 cached pairs, ≤ 2 KiB per pair: **met** (1.50 KiB per pair (R² 1.0000, medians within 0.0 MiB of the line))",
	)
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("memory.json: %v", err)
	}
}
