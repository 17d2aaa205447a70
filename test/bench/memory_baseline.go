package bench

import (
	"encoding/json"
	"fmt"
	"math"
)

// baselineVariant is the baseline among the variants, nil when none ran.
func (r *MemoryReport) baselineVariant() *Variant {
	for i := range r.Variants {
		if r.Variants[i].IsBaseline() {
			return &r.Variants[i]
		}
	}
	return nil
}

// isBaseline tells whether the named variant is the baseline.
func (r *MemoryReport) isBaseline(name string) bool {
	b := r.baselineVariant()
	return b != nil && b.Name == name
}

// peakRSS is a variant's peak RSS over its runs, in MiB.
func (r *MemoryReport) peakRSS(name string) Spread {
	return r.spread(name, func(m *MemoryRun) float64 { return mib(m.End.PeakRSS) })
}

// peakVsBaseline is a variant's median peak RSS over the baseline's, NaN
// without a baseline or a measured run.
func (r *MemoryReport) peakVsBaseline(name string) float64 {
	b := r.baselineVariant()
	if b == nil {
		return math.NaN()
	}
	return ratio(r.peakRSS(name), r.peakRSS(b.Name))
}

// MemoryVsBaseline is one of our variants' memory figures as ratios to the
// baseline's medians; a ratio that cannot be computed is left out.
type MemoryVsBaseline struct {
	Variant string   `json:"variant"`
	PeakRSS *float64 `json:"peakRSS,omitempty"`
	// CPU is the CPU time of the whole run (sync, idle, batch).
	CPU *float64 `json:"cpu,omitempty"`
}

// BaselineRatios are every variant of ours against the baseline; nil when
// no baseline ran.
func (r *MemoryReport) BaselineRatios() []MemoryVsBaseline {
	b := r.baselineVariant()
	if b == nil {
		return nil
	}
	cpu := func(name string) Spread { return r.spread(name, func(m *MemoryRun) float64 { return seconds(m.CPU) }) }
	var out []MemoryVsBaseline
	for _, v := range r.Variants {
		if v.IsBaseline() {
			continue
		}
		out = append(out, MemoryVsBaseline{
			Variant: v.Name,
			PeakRSS: ratioValue(r.peakVsBaseline(v.Name)),
			CPU:     ratioValue(ratio(cpu(v.Name), cpu(b.Name))),
		})
	}
	return out
}

// MarshalJSON adds the ratios to the baseline to the report's figures.
func (r *MemoryReport) MarshalJSON() ([]byte, error) {
	type plain MemoryReport
	return json.Marshal(struct {
		*plain
		VsBaseline []MemoryVsBaseline `json:"vsBaseline,omitempty"`
	}{(*plain)(r), r.BaselineRatios()})
}

// baselineGoal judges the peak RSS of the variant with the shipped
// settings against the baseline's (medians); ok is false when no baseline
// ran.
func (r *MemoryReport) baselineGoal() (g Goal, ok bool) {
	b := r.baselineVariant()
	if b == nil {
		return Goal{}, false
	}
	name := fmt.Sprintf("peak RSS of %s (shipped settings) ≤ %.1f × %s, %s claims and PVs cached", r.Shipped, goalPeakRSSVsBaseline, b.Name, thousands(r.Setup.Objects))
	return ratioGoal(name, r.peakRSS(r.Shipped), r.peakRSS(b.Name), true, goalPeakRSSVsBaseline, 1, " MiB"), true
}

// baselineGoalLine is memory.md's line for the goal against the baseline,
// "" without one.
func (r *MemoryReport) baselineGoalLine() string {
	g, ok := r.baselineGoal()
	if !ok {
		return ""
	}
	met := "**not met**"
	if g.Met {
		met = "**met**"
	}
	if g.Value == nil {
		met = "not measured"
	}
	return fmt.Sprintf("Goal against the baseline: %s: %s (%s, medians).", g.Goal, met, g.Measured)
}
