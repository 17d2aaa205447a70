package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// memoryReportWith is a memory report whose variants, gate on and off and
// any extra ones, had runs with the given peaks.
func memoryReportWith(peaksMiB map[string][]float64, extra ...Variant) *MemoryReport {
	r := &MemoryReport{
		Options:  QuickMemoryOptions(),
		Variants: append([]Variant{GateOn, GateOff}, extra...),
		GoalMiB:  150,
		Shipped:  GateOn.Name,
		Batch:    100,
		Setup:    MemorySetup{Objects: 2000},
	}
	order := 0
	for _, v := range r.Variants {
		for i, p := range peaksMiB[v.Name] {
			order++
			r.Runs = append(r.Runs, &MemoryRun{
				Variant: v.Name, Run: i + 1, Order: order,
				End:        procMemory{PeakRSS: int64(p * (1 << 20)), RSS: int64(p * (1 << 20)), RSSAnon: int64(p*(1<<20)) - 40<<20, RSSFile: 40 << 20},
				Heap:       goMemory{HeapInuse: 50 << 20, Sys: 80 << 20},
				SyncTime:   time.Second,
				CPU:        2 * time.Second,
				BatchBound: 100,
			})
		}
	}
	return r
}

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
		r := memoryReportWith(tc.peaks)
		if got := r.goalLine(); got != tc.want {
			t.Errorf("peaks %v:\n got %s\nwant %s", tc.peaks, got, tc.want)
		}
		if md := r.Markdown(); !strings.Contains(md, tc.want) {
			t.Errorf("peaks %v: the report lacks the goal line", tc.peaks)
		}
	}
}

func TestMemoryMarkdown(t *testing.T) {
	r := memoryReportWith(map[string][]float64{"gate on": {120, 140, 130}, "gate off": {110}})
	md := r.Markdown()
	mustContain(t, "report", md,
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
	for name, spoil := range map[string]func(*MemoryReport){
		"error":         func(r *MemoryReport) { r.Runs[0].Problems = []string{"sidecar exited"} },
		"not all Bound": func(r *MemoryReport) { r.Runs[0].BatchBound = 99 },
		"PV left":       func(r *MemoryReport) { r.Runs[0].PVsLeft = 1 },
		"claim left":    func(r *MemoryReport) { r.Runs[0].ClaimsLeft = 1 },
		"driver volume": func(r *MemoryReport) { r.Runs[0].VolumesLeft = 1 },
		"setup problem": func(r *MemoryReport) { r.Setup.Problems = []string{"9 claims not Bound"} },
	} {
		r := memoryReportWith(map[string][]float64{"gate on": {120}})
		spoil(r)
		if !r.HasProblems() {
			t.Errorf("%s: HasProblems = false", name)
		}
	}
}

func TestPeakRSSByVariant(t *testing.T) {
	r := memoryReportWith(map[string][]float64{"gate on": {120, 140}, "gate off": {110}})
	// A run that never read the memory is left out, not plotted as zero.
	r.Runs = append(r.Runs, &MemoryRun{Variant: "gate off", Run: 2, Problems: []string{"did not start"}})
	got := r.PeakRSSByVariant()
	if !slices.Equal(got["gate on"], []float64{120, 140}) || !slices.Equal(got["gate off"], []float64{110}) || len(got) != 2 {
		t.Errorf("PeakRSSByVariant = %v", got)
	}
}
