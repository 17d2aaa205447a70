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

// PeakRSS is a variant's peak RSS over its runs, in MiB.
func (r *Report) PeakRSS(name string) measure.Spread {
	return r.Spread(name, func(m *SidecarRun) float64 { return measure.MiB(m.End.PeakRSS) })
}

// IdlePeakRSS is a variant's peak RSS once synced and idle, before the
// batch, over its runs, in MiB.
func (r *Report) IdlePeakRSS(name string) measure.Spread {
	return r.Spread(name, func(m *SidecarRun) float64 { return mibOrNaN(m.Idle.PeakRSS) })
}

// peakVsBaseline is a variant's median peak RSS over the baseline's, NaN
// without a baseline or a measured run.
func (r *Report) peakVsBaseline(name string) float64 {
	b := r.BaselineVariant()
	if b == nil {
		return math.NaN()
	}
	return measure.Ratio(r.PeakRSS(name), r.PeakRSS(b.Name))
}

// VsBaseline is one of our variants' memory figures as ratios to the
// baseline's medians; a ratio that cannot be computed is left out.
type VsBaseline struct {
	Variant string   `json:"variant"`
	PeakRSS *float64 `json:"peakRSS,omitempty"`
	// CPU is the CPU time of the whole run (sync, idle, batch).
	CPU *float64 `json:"cpu,omitempty"`
}

// BaselineRatios are every variant of ours against the baseline; nil when
// no baseline ran.
func (r *Report) BaselineRatios() []VsBaseline {
	b := r.BaselineVariant()
	if b == nil {
		return nil
	}
	cpu := func(name string) measure.Spread {
		return r.Spread(name, func(m *SidecarRun) float64 { return measure.Seconds(m.CPU) })
	}
	var out []VsBaseline
	for _, v := range r.Variants {
		if v.IsBaseline() {
			continue
		}
		out = append(out, VsBaseline{
			Variant: v.Name,
			PeakRSS: bench.RatioValue(r.peakVsBaseline(v.Name)),
			CPU:     bench.RatioValue(measure.Ratio(cpu(v.Name), cpu(b.Name))),
		})
	}
	return out
}

// MarshalJSON adds the ratios to the baseline to the report's figures.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		*plain
		VsBaseline []VsBaseline `json:"vsBaseline,omitempty"`
	}{(*plain)(r), r.BaselineRatios()})
}
