package plots

import (
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/capacity"
)

func TestCapacityPlotsDrawTheQueueAndTheErrorOverTime(t *testing.T) {
	o := capacity.QuickOptions()
	o.Variants = []bench.Variant{capacity.Ours, bench.Baseline("/tmp/up/bin/csi-provisioner")}
	moving := func(depth func(i int) int) capacity.Moving {
		var m capacity.Moving
		for i := range 96 {
			at := time.Duration(i) * 500 * time.Millisecond
			m.Samples = append(m.Samples, capacity.Sample{At: at, Objects: 400, ErrorP99: 0.4})
			m.Depths = append(m.Depths, capacity.DepthSample{At: at, Depth: depth(i)})
		}
		return m
	}
	r := &capacity.Report{Options: o, Setup: capacity.Setup{Objects: 400}, Runs: []*capacity.RunResult{
		{Variant: capacity.Ours.Name, Run: 1, Moving: moving(func(int) int { return 400 })},
		{Variant: bench.BaselineName, Run: 1, Moving: moving(func(i int) int { return 400 + 50*i })},
	}}
	dir := t.TempDir()
	plots, err := Capacity(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	for file, img := range decodePlots(t, dir, plots, []string{"capacity-queue-depth.png", "capacity-error.png"}) {
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
			t.Errorf("%s is %v, too small to read", file, b)
		}
	}
}
