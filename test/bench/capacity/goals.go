package capacity

import (
	"fmt"
	"math"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// The goals of capacity tracking. Absolute ones are judged on the worst
// run of a configuration; the RSS one is a ratio of medians to the
// baseline.
const (
	// GoalErrorP99 bounds the 99th percentile of the relative error of
	// the published capacities in the moving phase.
	GoalErrorP99 = 0.10
	// GoalBoundFactor bounds the convergence and churn times at FastQPS
	// as a multiple of the time the QPS allows: writes / QPS.
	GoalBoundFactor = 1.1
	// GoalRSSVsBaseline bounds the moving phase sidecar's peak RSS as a
	// share of the baseline's.
	GoalRSSVsBaseline = 0.5
)

// goalCheck judges one goal for one configuration: what was measured, and
// whether it meets the goal. measured is false when no run measured it,
// which is not met.
type goalCheck struct {
	name  func(r *Report) string
	judge func(r *Report, runs []*RunResult) (text string, met, measured bool)
}

// absoluteGoals are the goals each configuration is judged by alone.
func absoluteGoals() []goalCheck {
	return []goalCheck{
		{
			name: func(r *Report) string {
				return "capacity, moving phase at the default budget: the queue drains (its backlog, queued keys and pending writes, in the last poll interval at most the larger of the first's and the number of objects; the largest reading of each)"
			},
			judge: judgeQueue,
		},
		{
			name: func(*Report) string {
				return fmt.Sprintf("capacity, moving phase: p99 relative error of the published capacity ≤ %s", bench.Pct(GoalErrorP99))
			},
			judge: judgeError,
		},
		{
			name: func(*Report) string {
				return fmt.Sprintf("capacity, moving phase: no object hides a change across its class's largest request for more than %d poll intervals", GoalHiddenPolls)
			},
			judge: judgeHidden,
		},
		{
			name: func(r *Report) string {
				return fmt.Sprintf("capacity at %g QPS: %s objects converge within %.1f × the QPS bound", r.Options.FastQPS, bench.Thousands(r.Options.objects()), GoalBoundFactor)
			},
			judge: func(r *Report, runs []*RunResult) (string, bool, bool) {
				return judgeBound(r, runs, func(x *RunResult) Convergence { return x.Convergence })
			},
		},
		{
			name: func(r *Report) string {
				return fmt.Sprintf("capacity at %g QPS: %d nodes leaving and %d joining followed within %.1f × the QPS bound", r.Options.FastQPS, r.Options.ChurnNodes, r.Options.ChurnNodes, GoalBoundFactor)
			},
			judge: func(r *Report, runs []*RunResult) (string, bool, bool) {
				return judgeBound(r, runs, func(x *RunResult) Convergence { return x.Churn })
			},
		},
		{
			name:  func(*Report) string { return "capacity: zero writes in a quiet poll" },
			judge: judgeQuiet,
		},
	}
}

// Goals judges our configuration: each absolute goal on its worst run,
// the baseline's figure beside it when one ran, and the peak RSS against
// the baseline's.
func (r *Report) Goals() []bench.Goal {
	ours := r.runsOf(Ours.Name)
	base := r.baseline()
	var goals []bench.Goal
	for _, c := range absoluteGoals() {
		text, met, measured := c.judge(r, ours)
		g := bench.Goal{Goal: c.name(r), Measured: text, Met: met && measured}
		if !measured {
			g.Measured = "not measured"
		}
		if base != nil {
			if bt, _, ok := c.judge(r, r.runsOf(base.Name)); ok {
				g.Measured += "; baseline: " + bt
			}
		}
		goals = append(goals, g)
	}
	if base != nil {
		goals = append(goals, bench.RatioGoal(fmt.Sprintf("capacity, moving phase: sidecar peak RSS ≤ %.1f × the baseline's", GoalRSSVsBaseline),
			r.MovingRSS(Ours.Name), r.MovingRSS(base.Name), true, GoalRSSVsBaseline, 1, " MiB"))
	}
	return goals
}

// runsOf are a configuration's runs.
func (r *Report) runsOf(variant string) []*RunResult {
	var out []*RunResult
	for _, run := range r.Runs {
		if run.Variant == variant {
			out = append(out, run)
		}
	}
	return out
}

// baseline is the baseline among the configurations, nil without one.
func (r *Report) baseline() *bench.Variant {
	for i := range r.Options.Variants {
		if r.Options.Variants[i].IsBaseline() {
			return &r.Options.Variants[i]
		}
	}
	return nil
}

// MovingRSS is a configuration's peak RSS in the moving phase, in MiB,
// over its runs.
func (r *Report) MovingRSS(variant string) measure.Spread {
	var v []float64
	for _, run := range r.runsOf(variant) {
		if b, ok := run.PeakRSS["moving"]; ok && b > 0 {
			v = append(v, measure.MiB(b))
		} else {
			v = append(v, math.NaN())
		}
	}
	return measure.SpreadOf(v)
}

// queueDrains is the drain criterion of one run: the largest backlog in
// the last poll interval is at most the larger of the largest in the first
// and the number of objects. A queue that holds each object at most
// once stays under the second however long it lags; one that grows with
// every poll passes both.
func queueDrains(d DepthSummary, objects int) bool {
	return d.FirstPoll >= 0 && d.LastPoll >= 0 && d.LastPoll <= max(d.FirstPoll, objects)
}

func judgeQueue(r *Report, runs []*RunResult) (string, bool, bool) {
	var worst *RunResult
	met := true
	for _, run := range runs {
		d := run.Moving.Depth
		if d.FirstPoll < 0 || d.LastPoll < 0 {
			continue
		}
		// The worst run is the first that fails, or the deepest of
		// those that fail as it does.
		ok := queueDrains(d, r.Options.objects())
		switch {
		case worst == nil, !ok && met, ok == met && d.LastPoll > worst.Moving.Depth.LastPoll:
			worst = run
		}
		met = met && ok
	}
	if worst == nil {
		return "", false, false
	}
	d := worst.Moving.Depth
	return fmt.Sprintf("last poll %s, first poll %s, max %s (%s objects)", bench.Thousands(d.LastPoll), bench.Thousands(d.FirstPoll), bench.Thousands(d.Max), bench.Thousands(r.Options.objects())), met, true
}

func judgeError(_ *Report, runs []*RunResult) (string, bool, bool) {
	worst := -1.0
	for _, run := range runs {
		if run.Moving.Observations > 0 {
			worst = max(worst, run.Moving.ErrorP99)
		}
	}
	if worst < 0 {
		return "", false, false
	}
	return "p99 " + pct1(worst), worst <= GoalErrorP99, true
}

func judgeHidden(r *Report, runs []*RunResult) (string, bool, bool) {
	var worst *Moving
	for _, run := range runs {
		if run.Moving.Observations == 0 {
			continue
		}
		if worst == nil || run.Moving.HiddenLongest > worst.HiddenLongest {
			worst = &run.Moving
		}
	}
	if worst == nil {
		return "", false, false
	}
	limit := GoalHiddenPolls * r.Options.PollInterval
	polls := worst.HiddenLongest.Seconds() / r.Options.PollInterval.Seconds()
	return fmt.Sprintf("longest %.1f polls (%s), %d of %d streaks over %d polls", polls, worst.HiddenLongest.Round(time.Second), worst.HiddenOverLimit, worst.HiddenStreaks, GoalHiddenPolls),
		worst.HiddenLongest <= limit, true
}

// bound is the time writes take at the QPS: the client's limit allows no
// faster, but for its burst.
func (r *Report) bound(writes int) time.Duration {
	return time.Duration(float64(writes) / r.Options.FastQPS * float64(time.Second))
}

func judgeBound(r *Report, runs []*RunResult, phase func(*RunResult) Convergence) (string, bool, bool) {
	var worst *Convergence
	for _, run := range runs {
		c := phase(run)
		if c.Writes == 0 {
			continue
		}
		if worst == nil || c.Took == 0 || (worst.Took != 0 && c.Took > worst.Took) {
			worst = &c
		}
	}
	if worst == nil {
		return "", false, false
	}
	b := r.bound(worst.Writes)
	if worst.Took == 0 {
		return fmt.Sprintf("did not converge (bound %.1f s)", b.Seconds()), false, true
	}
	q := worst.Took.Seconds() / b.Seconds()
	return fmt.Sprintf("%.2f × (%.1f s for %s writes, bound %.1f s)", q, worst.Took.Seconds(), bench.Thousands(worst.Writes), b.Seconds()), q <= GoalBoundFactor, true
}

func judgeQuiet(_ *Report, runs []*RunResult) (string, bool, bool) {
	worst, refused, measured := 0, 0, false
	for _, run := range runs {
		if run.Quiet.Window == 0 {
			continue
		}
		measured = true
		worst = max(worst, run.Quiet.Writes)
		refused = max(refused, run.Quiet.Refused)
	}
	if !measured {
		return "", false, false
	}
	text := fmt.Sprintf("%d writes", worst)
	if refused > 0 {
		text += fmt.Sprintf(" (and %d refused)", refused)
	}
	return text, worst == 0, true
}

// pct1 is a share as a percentage with one decimal.
func pct1(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
