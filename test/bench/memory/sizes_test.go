package memory

import (
	"slices"
	"testing"
)

// A size the cluster was filled to is one even if none of its runs read
// the sidecar's memory; a report of one size, whose runs do not say how
// many pairs they had, is at Setup.Objects.
func TestSizesComeFromTheFillsAndTheRuns(t *testing.T) {
	r := &Report{
		Setup: Setup{Objects: 50000, Fills: []Fill{{Pairs: 10000}, {Pairs: 25000}, {Pairs: 50000}}},
		Runs:  []*SidecarRun{{Variant: "gate on", Pairs: 10000, End: peakOf(150)}, {Variant: "gate on", Pairs: 25000, Problems: []string{"did not start"}}},
	}
	if got := r.Sizes(); !slices.Equal(got, []int{10000, 25000, 50000}) {
		t.Errorf("sizes %v", got)
	}
	if got := r.PeakRSSAt("gate on", 25000); got.N != 0 {
		t.Errorf("a run that read no memory counted: %+v", got)
	}

	old := &Report{Setup: Setup{Objects: 2000}, Runs: []*SidecarRun{{Variant: "gate on", End: peakOf(90)}}}
	if got := old.Sizes(); !slices.Equal(got, []int{2000}) {
		t.Errorf("sizes of a report of one size %v", got)
	}
	if got := old.PeakRSSAt("gate on", 2000); got.Median != 90 {
		t.Errorf("peak RSS at 2,000 of a report of one size: %+v", got)
	}
}
