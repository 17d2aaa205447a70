package memory

import (
	"fmt"
	"math"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// The project's memory goals: a budget every run of ours must stay under,
// and, against the baseline (an upstream release), the shipped settings'
// peak RSS at most 0.8 of upstream's (Options.Shipped names the variant).
const (
	GoalPeakRSSMiB        = 150.0
	GoalPeakRSSVsBaseline = 0.8
)

// worstPeak is the highest peak RSS of any run of ours (not the
// baseline's), in MiB, NaN without one.
func (r *Report) worstPeak() float64 {
	worst := math.NaN()
	for _, run := range r.Runs {
		if run.measured() && !r.isBaseline(run.Variant) && (math.IsNaN(worst) || measure.MiB(run.End.PeakRSS) > worst) {
			worst = measure.MiB(run.End.PeakRSS)
		}
	}
	return worst
}

// goalLine says whether every run stayed under the goal.
func (r *Report) goalLine() string {
	worst := r.worstPeak()
	goal := fmt.Sprintf("Goal: peak RSS under %.0f MiB", r.GoalMiB)
	if r.BaselineVariant() != nil {
		goal += " (every run of ours; the baseline is not judged by it)"
	}
	switch {
	case math.IsNaN(worst):
		return goal + ": not measured (no run read the sidecar's memory)."
	case worst < r.GoalMiB:
		return fmt.Sprintf("%s: **met** (worst run %.1f MiB).", goal, worst)
	default:
		return fmt.Sprintf("%s: **not met** (worst run %.1f MiB).", goal, worst)
	}
}

// GoalSummary is the memory goal's figure for the table of goals: the worst
// run of ours' peak RSS (the goal holds only if every run stays under it)
// and each variant's median, and whether the goal was met. The baseline is
// not judged by it.
func (r *Report) GoalSummary() (measured string, met bool) {
	worst := r.worstPeak()
	if math.IsNaN(worst) {
		return "not measured", false
	}
	var medians []string
	for _, v := range r.Variants {
		if v.IsBaseline() {
			continue
		}
		medians = append(medians, fmt.Sprintf("%s %s", v.Name, bench.FmtSpread(r.PeakRSS(v.Name), 1, " MiB")))
	}
	return fmt.Sprintf("worst run %.1f MiB (%s)", worst, strings.Join(medians, "; ")), worst < r.GoalMiB
}

// BaselineGoal judges the peak RSS of the variant with the shipped
// settings against the baseline's (medians); ok is false when no baseline
// ran.
func (r *Report) BaselineGoal() (g bench.Goal, ok bool) {
	b := r.BaselineVariant()
	if b == nil {
		return bench.Goal{}, false
	}
	name := fmt.Sprintf("peak RSS of %s (shipped settings) ≤ %.1f × %s, %s claims and PVs cached", r.Shipped, GoalPeakRSSVsBaseline, b.Name, bench.Thousands(r.Setup.Objects))
	return bench.RatioGoal(name, r.PeakRSS(r.Shipped), r.PeakRSS(b.Name), true, GoalPeakRSSVsBaseline, 1, " MiB"), true
}

// baselineGoalLine is memory.md's line for the goal against the baseline,
// "" without one.
func (r *Report) baselineGoalLine() string {
	g, ok := r.BaselineGoal()
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
