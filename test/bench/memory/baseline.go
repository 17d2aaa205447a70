package memory

import (
	"encoding/json"
	"math"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// BaselineVariant is the baseline among the variants, nil when none ran.
func (r *Report) BaselineVariant() *bench.Variant {
	for i := range r.Variants {
		if r.Variants[i].IsBaseline() {
			return &r.Variants[i]
		}
	}
	return nil
}

// isBaseline tells whether the named variant is the baseline.
func (r *Report) isBaseline(name string) bool {
	b := r.BaselineVariant()
	return b != nil && b.Name == name
}

// vsBaselineAt is a figure's median of a variant over the baseline's at a
// size, NaN without a baseline or a measured run.
func (r *Report) vsBaselineAt(name string, pairs int, f func(*SidecarRun) float64) float64 {
	b := r.BaselineVariant()
	if b == nil {
		return math.NaN()
	}
	return measure.Ratio(r.SpreadAt(name, pairs, f), r.SpreadAt(b.Name, pairs, f))
}

func peakRSSMiB(m *SidecarRun) float64 { return measure.MiB(m.End.PeakRSS) }

// VsBaseline is one of our variants' figures at one size as ratios to the
// baseline's medians; a ratio that cannot be computed is left out.
type VsBaseline struct {
	Variant string   `json:"variant"`
	Pairs   int      `json:"pairs"`
	PeakRSS *float64 `json:"peakRSS,omitempty"`
	// CPU is the CPU time of the whole run (sync, idle, batch).
	CPU *float64 `json:"cpu,omitempty"`
	// FirstClaim is the time from the start until the first claim was
	// Bound.
	FirstClaim *float64 `json:"firstClaim,omitempty"`
}

// BaselineRatios are every variant of ours against the baseline at every
// size; nil when no baseline ran.
func (r *Report) BaselineRatios() []VsBaseline {
	if r.BaselineVariant() == nil {
		return nil
	}
	cpu := func(m *SidecarRun) float64 { return measure.Seconds(m.CPU) }
	first := func(m *SidecarRun) float64 { return secondsOrNaN(m.FirstClaimBound) }
	var out []VsBaseline
	for _, pairs := range r.Sizes() {
		for _, v := range r.Variants {
			if v.IsBaseline() {
				continue
			}
			out = append(out, VsBaseline{
				Variant:    v.Name,
				Pairs:      pairs,
				PeakRSS:    bench.RatioValue(r.vsBaselineAt(v.Name, pairs, peakRSSMiB)),
				CPU:        bench.RatioValue(r.vsBaselineAt(v.Name, pairs, cpu)),
				FirstClaim: bench.RatioValue(r.vsBaselineAt(v.Name, pairs, first)),
			})
		}
	}
	return out
}

// MarshalJSON adds the ratios to the baseline, the fits of peak RSS over
// the number of pairs and the goals to the report's figures.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		*plain
		VsBaseline []VsBaseline `json:"vsBaseline,omitempty"`
		Fits       []Fit        `json:"fits"`
		Goals      []bench.Goal `json:"goals"`
	}{(*plain)(r), r.BaselineRatios(), r.Fits(), r.Goals()})
}
