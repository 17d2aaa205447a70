package memory

import (
	"fmt"
	"math"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// The project's memory goals. At the smallest size (10,000 pairs, the
// size the benchmark results have always quoted): a budget every run of ours must stay
// under, and the shipped settings' peak RSS at most 0.8 of the baseline's.
// At the largest (50,000): the shipped settings' peak RSS at most half
// the baseline's, and their first claim Bound no later than the
// baseline's after a start. Over the sizes: the shipped settings' peak
// RSS grows by at most 2 KiB per cached pair (a claim and its PV).
const (
	GoalPeakRSSMiB               = 150.0
	GoalPeakRSSVsBaseline        = 0.8
	GoalPeakRSSVsBaselineLargest = 0.5
	GoalSlopeKiBPerPair          = 2.0
	GoalFirstClaimVsBaseline     = 1.0
)

// Goals are the memory goals as the runs met them: the budget and the
// slope always, the ones against the baseline when it ran, the first
// claim's only when some run measured it (reports from before it was
// measured have none).
func (r *Report) Goals() []bench.Goal {
	goals := []bench.Goal{r.budgetGoal(), r.slopeGoal()}
	b := r.BaselineVariant()
	if b == nil {
		return goals
	}
	small, large := r.smallest(), r.largest()
	goals = append(goals,
		bench.RatioGoal(fmt.Sprintf("peak RSS of %s (shipped settings) ≤ %.1f × %s, %s claims and PVs cached", r.Shipped, GoalPeakRSSVsBaseline, b.Name, bench.Thousands(small)),
			r.PeakRSSAt(r.Shipped, small), r.PeakRSSAt(b.Name, small), true, GoalPeakRSSVsBaseline, 1, " MiB"),
		bench.RatioGoal(fmt.Sprintf("peak RSS of %s (shipped settings) ≤ %.1f × %s, %s claims and PVs cached", r.Shipped, GoalPeakRSSVsBaselineLargest, b.Name, bench.Thousands(large)),
			r.PeakRSSAt(r.Shipped, large), r.PeakRSSAt(b.Name, large), true, GoalPeakRSSVsBaselineLargest, 1, " MiB"))
	ours, base := r.FirstClaimAt(r.Shipped, large), r.FirstClaimAt(b.Name, large)
	if ours.N > 0 || base.N > 0 {
		goals = append(goals, bench.RatioGoal(fmt.Sprintf("time from start to first claim Bound, %s (shipped settings) ≤ %s, %s claims and PVs cached", r.Shipped, b.Name, bench.Thousands(large)),
			ours, base, true, GoalFirstClaimVsBaseline, 2, " s"))
	}
	return goals
}

// worstPeakAt is the highest peak RSS of any run of ours (not the
// baseline's) at a size, in MiB, NaN without one.
func (r *Report) worstPeakAt(pairs int) float64 {
	worst := math.NaN()
	for _, run := range r.runsAt(pairs) {
		if p := measure.MiB(run.End.PeakRSS); !r.isBaseline(run.Variant) && (math.IsNaN(worst) || p > worst) {
			worst = p
		}
	}
	return worst
}

// budgetGoal holds if every run of ours at the smallest size stayed under
// the budget; the baseline is not judged by it. Its figure is the worst
// run and each variant's median.
func (r *Report) budgetGoal() bench.Goal {
	pairs := r.smallest()
	g := bench.Goal{Goal: fmt.Sprintf("sidecar peak RSS with %s claims and PVs cached < %.0f MiB", bench.Thousands(pairs), r.GoalMiB)}
	worst := r.worstPeakAt(pairs)
	if math.IsNaN(worst) {
		g.Measured = "not measured"
		return g
	}
	var medians []string
	for _, v := range r.Variants {
		if !v.IsBaseline() {
			medians = append(medians, fmt.Sprintf("%s %s", v.Name, bench.FmtSpread(r.PeakRSSAt(v.Name, pairs), 1, " MiB")))
		}
	}
	g.Measured = fmt.Sprintf("worst run %.1f MiB (%s)", worst, strings.Join(medians, "; "))
	g.Met = worst < r.GoalMiB
	return g
}

// slopeGoal judges the shipped settings' line of peak RSS over the pairs
// cached.
func (r *Report) slopeGoal() bench.Goal {
	sizes := r.Sizes()
	over := "the sizes"
	if len(sizes) > 0 {
		var names []string
		for _, s := range sizes {
			names = append(names, bench.Thousands(s))
		}
		over = strings.Join(names, ", ")
	}
	g := bench.Goal{Goal: fmt.Sprintf("peak RSS slope of %s (shipped settings), least squares over %s cached pairs, ≤ %.0f KiB per pair", r.Shipped, over, GoalSlopeKiBPerPair)}
	f, ok := r.FitOf(r.Shipped)
	if !ok {
		g.Measured = "not measured (needs runs at two sizes or more)"
		return g
	}
	g.Measured = fmt.Sprintf("%.2f KiB per pair (%s)", f.KiBPerPair(), f.linearity())
	g.Met = f.KiBPerPair() <= GoalSlopeKiBPerPair
	return g
}

// linearity says how straight the line is: R² and the largest residual.
func (f Fit) linearity() string {
	if math.IsNaN(f.R2) {
		return fmt.Sprintf("%d sizes: no R²", len(f.Points))
	}
	return fmt.Sprintf("R² %.4f, medians within %.1f MiB of the line", f.R2, f.MaxResidual())
}
