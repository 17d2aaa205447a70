package benchtest

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
)

// MemoryReport is a memory report of 2,000 pairs whose variants, gate on
// and off and any extra ones, had runs with the given peaks, by variant
// name.
func MemoryReport(peaksMiB map[string][]float64, extra ...bench.Variant) *memory.Report {
	r := &memory.Report{
		Options:  memory.QuickOptions(),
		Variants: append([]bench.Variant{bench.GateOn, bench.GateOff}, extra...),
		GoalMiB:  memory.GoalPeakRSSMiB,
		Shipped:  bench.GateOn.Name,
		Batch:    100,
		Setup:    memory.Setup{Objects: 2000},
	}
	order := 0
	for _, v := range r.Variants {
		for i, p := range peaksMiB[v.Name] {
			order++
			r.Runs = append(r.Runs, &memory.SidecarRun{
				Variant: v.Name, Run: i + 1, Order: order,
				End:        measure.ProcMemory{PeakRSS: int64(p * (1 << 20)), RSS: int64(p * (1 << 20)), RSSAnon: int64(p*(1<<20)) - 40<<20, RSSFile: 40 << 20},
				Heap:       measure.GoMemory{HeapInuse: 50 << 20, Sys: 80 << 20},
				SyncTime:   time.Second,
				CPU:        2 * time.Second,
				BatchBound: 100,
			})
		}
	}
	return r
}
