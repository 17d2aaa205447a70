package memory

import (
	"slices"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// pairsOf is the number of pairs a run had cached: its own, or in a report
// of one size, whose runs do not say, Setup.Objects.
func (r *Report) pairsOf(run *SidecarRun) int {
	if run.Pairs > 0 {
		return run.Pairs
	}
	return r.Setup.Objects
}

// Sizes are the numbers of pairs the cluster was filled to or the runs
// had cached, ascending: a size whose runs all failed is still one.
func (r *Report) Sizes() []int {
	var sizes []int
	add := func(n int) {
		if n > 0 && !slices.Contains(sizes, n) {
			sizes = append(sizes, n)
		}
	}
	for _, f := range r.Setup.Fills {
		add(f.Pairs)
	}
	for _, run := range r.Runs {
		add(r.pairsOf(run))
	}
	if len(sizes) == 0 {
		add(r.Setup.Objects)
	}
	slices.Sort(sizes)
	return sizes
}

// smallest and largest are the ends of Sizes, 0 without a run.
func (r *Report) smallest() int {
	if s := r.Sizes(); len(s) > 0 {
		return s[0]
	}
	return 0
}

func (r *Report) largest() int {
	if s := r.Sizes(); len(s) > 0 {
		return s[len(s)-1]
	}
	return 0
}

// runsAt are the runs at a size that read the sidecar's memory. Runs that
// went wrong later still count: their peak is what the process reached.
func (r *Report) runsAt(pairs int) []*SidecarRun {
	var out []*SidecarRun
	for _, run := range r.Runs {
		if r.pairsOf(run) == pairs && run.measured() {
			out = append(out, run)
		}
	}
	return out
}

// SpreadAt is a figure over a variant's runs at a size that read the
// sidecar's memory.
func (r *Report) SpreadAt(variant string, pairs int, f func(*SidecarRun) float64) measure.Spread {
	var v []float64
	for _, run := range r.runsAt(pairs) {
		if run.Variant == variant {
			v = append(v, f(run))
		}
	}
	return measure.SpreadOf(v)
}

// PeakRSSAt is a variant's peak RSS over its runs at a size, in MiB.
func (r *Report) PeakRSSAt(variant string, pairs int) measure.Spread {
	return r.SpreadAt(variant, pairs, func(m *SidecarRun) float64 { return measure.MiB(m.End.PeakRSS) })
}

// IdlePeakRSSAt is a variant's peak RSS once synced and idle, before the
// batch, over its runs at a size, in MiB.
func (r *Report) IdlePeakRSSAt(variant string, pairs int) measure.Spread {
	return r.SpreadAt(variant, pairs, func(m *SidecarRun) float64 { return mibOrNaN(m.Idle.PeakRSS) })
}

// FirstClaimAt is a variant's time from its start until the first claim
// was Bound, over its runs at a size, in seconds.
func (r *Report) FirstClaimAt(variant string, pairs int) measure.Spread {
	return r.SpreadAt(variant, pairs, func(m *SidecarRun) float64 { return secondsOrNaN(m.FirstClaimBound) })
}

// measured tells whether a run read the sidecar's memory at all.
func (run *SidecarRun) measured() bool { return run.End.PeakRSS > 0 }
