package throttled

import (
	"fmt"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// Against an upstream release on the same throttled backend, adaptive
// concurrency gets every claim Bound in at most 0.8 of its time, and with
// at most a tenth of its refused CreateVolume calls.
const (
	GoalBoundInVsBaseline       = 0.8
	GoalFailedCreatesVsBaseline = 0.1
)

// goalFigures are the figures judged, with their targets.
var goalFigures = []struct {
	fig    figure
	target float64
}{
	{figBoundIn, GoalBoundInVsBaseline},
	{figCreateFailed, GoalFailedCreatesVsBaseline},
}

// Goals judges "adaptive" against the baseline: its time until all Bound
// and its failed CreateVolume calls, each the ratio of the medians over
// the runs. Without a baseline they are not measured.
func (r *Report) Goals() []bench.Goal {
	goals := make([]bench.Goal, 0, len(goalFigures))
	for _, g := range goalFigures {
		goals = append(goals, r.goal(Adaptive.Name, g.fig, g.target))
	}
	return goals
}

// goal judges variant's f against the baseline's. A run that ran out of
// time makes its median a lower bound: ours then cannot be shown to meet
// the goal, while the baseline's alone makes the ratio an upper bound, so a
// goal met is still met.
func (r *Report) goal(variant string, f figure, target float64) bench.Goal {
	ours, base := r.spread(variant, f), r.spread(bench.BaselineName, f)
	name := fmt.Sprintf("throttled backend, %s claims at %v calls/s: %s, %s ≤ %g × baseline",
		bench.Thousands(r.Options.Claims), r.Options.APIRateLimit, f.name, variant, target)
	g := bench.RatioGoal(name, ours.Spread, base.Spread, true, target, f.prec, f.unit)
	if g.Value == nil {
		return g
	}
	switch {
	case ours.LowerBound && base.LowerBound:
		g.Met, g.Value = false, nil
		g.Measured += fmt.Sprintf("; %s and the baseline both ran out of time, so not known", variant)
	case ours.LowerBound:
		g.Met = false
		g.Measured += fmt.Sprintf("; %s ran out of time, so at least that", variant)
	case base.LowerBound:
		g.Measured += "; the baseline ran out of time, so at most that"
	}
	return g
}
