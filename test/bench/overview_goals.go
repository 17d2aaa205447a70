package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Goal is one of the project's targets and where the benchmark found it.
type Goal struct {
	Goal     string `json:"goal"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
	// Value and Target are the figure and its bound for a goal that is a
	// ratio to the baseline; Value is nil when it was not measured.
	Value  *float64 `json:"value,omitempty"`
	Target float64  `json:"target,omitempty"`
}

// ratioGoal judges ours / base, the ratio of two medians, against target:
// at most target when atMost, at least otherwise. Not measured is not met.
func ratioGoal(name string, ours, base Spread, atMost bool, target float64, prec int, unit string) Goal {
	q := ratio(ours, base)
	g := Goal{Goal: name, Target: target, Value: ratioValue(q)}
	if g.Value == nil {
		g.Measured = "not measured"
		return g
	}
	g.Measured = fmt.Sprintf("%.2f (%.*f%s vs %.*f%s)", q, prec, ours.Median, unit, prec, base.Median, unit)
	if atMost {
		g.Met = q <= target
	} else {
		g.Met = q >= target
	}
	return g
}

// Goals are the targets the benchmark is judged by: gate on against gate
// off, ours against the baseline where one ran, the memory budget, and no
// errors.
func (o *Overview) Goals() []Goal {
	var goals []Goal
	for _, r := range o.Provisioning {
		a, c := r.Report.pair()
		if a == nil {
			continue
		}
		q := r.Report.throughputRatio()
		paired := r.Report.pairedRatios(func(x *RunResult) float64 { return x.Throughput() })
		goals = append(goals, Goal{
			Goal:     fmt.Sprintf("throughput %s ≥ %.1f × %s, %s", a.Variant.Name, goalThroughputRatio, c.Variant.Name, r.Scenario.Name()),
			Measured: fmt.Sprintf("%.2f (run by run %s)", q, fmtSpread(paired, 2, "")),
			Met:      q >= goalThroughputRatio,
		})
	}
	goals = append(goals, o.baselineGoals()...)
	if o.Memory != nil {
		measured, met := o.Memory.goalSummary()
		goals = append(goals, Goal{Goal: fmt.Sprintf("sidecar peak RSS with %s claims and PVs cached < %.0f MiB", thousands(o.Memory.Setup.Objects), o.Memory.GoalMiB), Measured: measured, Met: met})
		if g, ok := o.Memory.baselineGoal(); ok {
			goals = append(goals, g)
		}
	}
	failures, sidecarErrs, runs, baseErrs, baseRuns := 0, 0, 0, 0, 0
	var errKinds []string
	for _, r := range o.Provisioning {
		for _, v := range r.Report.Variants {
			for _, run := range v.Runs {
				f, s := run.errorsPerRun()
				if v.Variant.IsBaseline() {
					baseErrs += f + s
					baseRuns++
					continue
				}
				failures += f
				sidecarErrs += s
				runs++
			}
		}
		for _, k := range r.Report.errorKinds() {
			if !slices.Contains(errKinds, k) {
				errKinds = append(errKinds, k)
			}
		}
	}
	if runs > 0 {
		detail := fmt.Sprintf("%d runs: %d failed calls, unbound claims or leftover volumes; the sidecar got %d non-2xx answers", runs, failures, sidecarErrs)
		if len(errKinds) > 0 {
			detail += " (" + strings.Join(errKinds, ", ") + ")"
		}
		if baseRuns > 0 {
			detail += fmt.Sprintf("; the baseline, not judged: %d errors and non-2xx answers in %d runs", baseErrs, baseRuns)
		}
		goals = append(goals, Goal{Goal: "zero errors in every provisioning run", Measured: detail, Met: failures == 0 && sidecarErrs == 0})
	}
	if o.Memory != nil {
		goals = append(goals, Goal{Goal: "zero errors in every memory run", Measured: problemCount(o.Memory.HasProblems()), Met: !o.Memory.HasProblems()})
	}
	if o.PVCProtection != nil {
		goals = append(goals, o.PVCProtection.goals()...)
		goals = append(goals, Goal{Goal: "zero errors in every PVC protection run", Measured: problemCount(o.PVCProtection.HasProblems()), Met: !o.PVCProtection.HasProblems()})
	}
	return goals
}

// baselineGoals are the provisioning goals against the baseline, for every
// scenario in which it ran: with the default client limits, the gate on
// keeps throughput and latency close to upstream's; with the tuned limits
// it is at least as fast; deleting costs no more requests than upstream's,
// gate on or off.
func (o *Overview) baselineGoals() []Goal {
	var goals []Goal
	for _, r := range o.Provisioning {
		rep := r.Report
		base := rep.baseline()
		if base == nil {
			continue
		}
		at := ", " + r.Scenario.Name()
		var judged *VariantResult
		for _, v := range rep.ours() {
			if v.Variant.Name == baselineGoalVariant {
				judged = v
			}
		}
		if judged != nil {
			name := judged.Variant.Name
			switch r.Scenario.Limits.Short {
			case DefaultLimits.Short:
				goals = append(goals,
					ratioGoal(fmt.Sprintf("throughput %s ≥ %.2f × %s%s", name, goalDefaultThroughputVsBaseline, base.Variant.Name, at),
						judged.spread(figThroughput), base.spread(figThroughput), false, goalDefaultThroughputVsBaseline, 1, " claims/s"),
					ratioGoal(fmt.Sprintf("latency p50 (claim created → Bound) %s ≤ %.1f × %s%s", name, goalDefaultLatencyVsBaseline, base.Variant.Name, at),
						judged.spread(figLatencyP50), base.spread(figLatencyP50), true, goalDefaultLatencyVsBaseline, 2, " s"),
					ratioGoal(fmt.Sprintf("latency p99 (claim created → Bound) %s ≤ %.1f × %s%s", name, goalDefaultLatencyVsBaseline, base.Variant.Name, at),
						judged.spread(figLatencyP99), base.spread(figLatencyP99), true, goalDefaultLatencyVsBaseline, 2, " s"))
			case TunedLimits.Short:
				goals = append(goals,
					ratioGoal(fmt.Sprintf("throughput %s ≥ %.1f × %s%s", name, goalTunedThroughputVsBaseline, base.Variant.Name, at),
						judged.spread(figThroughput), base.spread(figThroughput), false, goalTunedThroughputVsBaseline, 1, " claims/s"))
			}
		}
		if !rep.deletes() {
			continue
		}
		for _, v := range rep.ours() {
			goals = append(goals, ratioGoal(fmt.Sprintf("sidecar API requests per deleted volume, %s ≤ %s%s", v.Variant.Name, base.Variant.Name, at),
				v.spread(figDelRequests), base.spread(figDelRequests), true, goalDeletionRequestsVsBaseline, 2, ""))
		}
	}
	return goals
}

// writeGoals is the table of the goals the benchmark is judged by.
func (o *Overview) writeGoals(b *strings.Builder) {
	b.WriteString("## Goals\n\n")
	t := &table{header: []string{"goal", "measured", "met"}}
	for _, g := range o.Goals() {
		t.add(g.Goal, g.Measured, yesNo(g.Met))
	}
	t.write(b)
	if base := o.baselineVariant(); base != nil {
		fmt.Fprintf(b, "Goals against the baseline (%s) compare medians over the runs: ours / baseline, then ours vs the baseline's figure.\n\n", base.upstream())
	}
	for _, r := range o.Provisioning {
		for _, v := range r.Report.ours() {
			for _, run := range v.Runs {
				if run.SidecarErrors() > 0 {
					b.WriteString("The sidecar's non-2xx answers are listed, with what causes them, in the Errors section of each scenario's report.\n\n")
					return
				}
			}
		}
	}
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func problemCount(has bool) string {
	if has {
		return "some runs had problems (see below)"
	}
	return "none"
}

// errorKinds names the sidecar's non-2xx answers of every run of ours,
// e.g. "deletion: delete persistentvolumes 404".
func (r *Report) errorKinds() []string {
	var kinds []string
	for _, v := range r.ours() {
		for _, run := range v.Runs {
			for _, ph := range r.measuredPhases() {
				for k := range ph.get(run).SidecarErrors {
					if s := ph.name + ": " + k; !slices.Contains(kinds, s) {
						kinds = append(kinds, s)
					}
				}
			}
		}
	}
	return kinds
}

// goalSummary is the memory goal's figure for the table of goals: the worst
// run of ours' peak RSS (the goal holds only if every run stays under it)
// and each variant's median, and whether the goal was met. The baseline is
// not judged by it.
func (r *MemoryReport) goalSummary() (measured string, met bool) {
	worst := r.worstPeak()
	if math.IsNaN(worst) {
		return "not measured", false
	}
	var medians []string
	for _, v := range r.Variants {
		if v.IsBaseline() {
			continue
		}
		medians = append(medians, fmt.Sprintf("%s %s", v.Name, fmtSpread(r.peakRSS(v.Name), 1, " MiB")))
	}
	return fmt.Sprintf("worst run %.1f MiB (%s)", worst, strings.Join(medians, "; ")), worst < r.GoalMiB
}
