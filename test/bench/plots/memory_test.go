package plots

import (
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
)

// The memory plot draws each variant's peak RSS over the sizes, with the
// baseline, and the goals where they judge.
func TestMemoryPlotOverSizes(t *testing.T) {
	r := &memory.Report{
		Variants: []bench.Variant{bench.GateOn, bench.GateOff, benchtest.Baseline},
		GoalMiB:  memory.GoalPeakRSSMiB,
		Shipped:  bench.GateOn.Name,
	}
	for _, pairs := range []int{10000, 25000, 50000} {
		for name, base := range map[string]float64{"gate on": 100, "gate off": 95, bench.BaselineName: 150} {
			for _, spread := range []float64{0, 3} {
				mib := base + spread + float64(pairs)*1.6/1024
				r.Runs = append(r.Runs, &memory.SidecarRun{Variant: name, Pairs: pairs, End: measure.ProcMemory{PeakRSS: int64(mib * (1 << 20))}})
			}
		}
	}
	dir := t.TempDir()
	p, err := memoryPlot(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	for file, img := range decodePlots(t, dir, []measure.Plot{p}, []string{"memory.png"}) {
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
			t.Errorf("%s is %v, too small to read", file, b)
		}
	}
}

func TestMemoryPlotMarksRoundMiB(t *testing.T) {
	var got []string
	for _, tick := range (mibTicks{}).Ticks(0, 264) {
		got = append(got, tick.Label)
	}
	if want := "0 50 100 150 200 250"; strings.Join(got, " ") != want {
		t.Errorf("ticks %v, want %s", got, want)
	}
}
