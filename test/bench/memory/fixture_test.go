package memory_test

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
)

// at is a variant's runs at one size: their peak RSS in MiB, and the time
// to the first claim Bound in seconds (0: not measured).
type at struct {
	variant string
	pairs   int
	peaks   []float64
	first   float64
}

// scaledReport is a report of runs at several sizes, of gate on and off
// and any extra variants, each run clean.
func scaledReport(runs []at, extra ...bench.Variant) *memory.Report {
	r := &memory.Report{
		Options:  memory.DefaultOptions(),
		Variants: append([]bench.Variant{bench.GateOn, bench.GateOff}, extra...),
		GoalMiB:  memory.GoalPeakRSSMiB,
		Shipped:  bench.GateOn.Name,
		Batch:    100,
	}
	for _, a := range runs {
		r.Setup.Objects = max(r.Setup.Objects, a.pairs)
		for i, p := range a.peaks {
			r.Runs = append(r.Runs, &memory.SidecarRun{
				Variant: a.variant, Pairs: a.pairs, Run: i + 1, Order: len(r.Runs) + 1,
				End:             measure.ProcMemory{PeakRSS: mib(p), RSS: mib(p), RSSAnon: mib(p) - 40<<20, RSSFile: 40 << 20},
				Heap:            measure.GoMemory{HeapInuse: 50 << 20, Sys: 80 << 20},
				SyncTime:        time.Second,
				FirstClaimBound: time.Duration(a.first * float64(time.Second)),
				CPU:             2 * time.Second,
				BatchBound:      100,
			})
		}
	}
	return r
}

func mib(v float64) int64 { return int64(v * (1 << 20)) }

// line is peak RSS of base MiB plus kib KiB per pair.
func line(base, kib float64, pairs int) float64 { return base + kib*float64(pairs)/1024 }
