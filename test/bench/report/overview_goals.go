package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// Goals are the targets the benchmark is judged by: gate on against gate
// off, ours against the baseline where one ran, the memory budget, and no
// errors.
func (o *Overview) Goals() []bench.Goal {
	var goals []bench.Goal
	for _, r := range o.Provisioning {
		a, c := r.Report.Pair()
		if a == nil {
			continue
		}
		q := r.Report.ThroughputRatio()
		paired := r.Report.PairedRatios(func(x *provisioning.RunResult) float64 { return x.Throughput() })
		goals = append(goals, bench.Goal{
			Goal:     fmt.Sprintf("throughput %s ≥ %.1f × %s, %s", a.Variant.Name, goalThroughputRatio, c.Variant.Name, r.Scenario.Name()),
			Measured: fmt.Sprintf("%.2f (run by run %s)", q, bench.FmtSpread(paired, 2, "")),
			Met:      q >= goalThroughputRatio,
		})
	}
	goals = append(goals, o.baselineGoals()...)
	if o.Memory != nil {
		goals = append(goals, o.Memory.Goals()...)
	}
	failures, sidecarErrs, runs, baseErrs, baseRuns := 0, 0, 0, 0, 0
	var errKinds []string
	for _, r := range o.Provisioning {
		for _, v := range r.Report.Variants {
			for _, run := range v.Runs {
				f, s := run.ErrorsPerRun()
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
		for _, k := range errorKinds(r.Report) {
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
		goals = append(goals, bench.Goal{Goal: "zero errors in every provisioning run", Measured: detail, Met: failures == 0 && sidecarErrs == 0})
	}
	if o.Memory != nil {
		goals = append(goals, bench.Goal{Goal: "zero errors in every memory run", Measured: problemCount(o.Memory.HasProblems()), Met: !o.Memory.HasProblems()})
	}
	if o.PVCProtection != nil {
		goals = append(goals, o.PVCProtection.Goals()...)
		goals = append(goals, bench.Goal{Goal: "zero errors in every PVC protection run", Measured: problemCount(o.PVCProtection.HasProblems()), Met: !o.PVCProtection.HasProblems()})
	}
	goals = append(goals, o.scaleGoals()...)
	return goals
}

// baselineGoals are the provisioning goals against the baseline, for every
// scenario in which it ran: with the default client limits, the gate on
// keeps throughput and latency close to upstream's; with the tuned limits
// it is at least as fast; deleting costs no more requests than upstream's,
// gate on or off.
func (o *Overview) baselineGoals() []bench.Goal {
	var goals []bench.Goal
	for _, r := range o.Provisioning {
		rep := r.Report
		base := rep.Baseline()
		if base == nil {
			continue
		}
		at := ", " + r.Scenario.Name()
		var judged *provisioning.VariantResult
		for _, v := range rep.Ours() {
			if v.Variant.Name == baselineGoalVariant {
				judged = v
			}
		}
		if judged != nil {
			name := judged.Variant.Name
			switch r.Scenario.Limits.Short {
			case provisioning.DefaultLimits.Short:
				goals = append(goals,
					bench.RatioGoal(fmt.Sprintf("throughput %s ≥ %.2f × %s%s", name, goalDefaultThroughputVsBaseline, base.Variant.Name, at),
						judged.Spread(provisioning.FigThroughput), base.Spread(provisioning.FigThroughput), false, goalDefaultThroughputVsBaseline, 1, " claims/s"),
					bench.RatioGoal(fmt.Sprintf("latency p50 (claim created → Bound) %s ≤ %.1f × %s%s", name, goalDefaultLatencyVsBaseline, base.Variant.Name, at),
						judged.Spread(provisioning.FigLatencyP50), base.Spread(provisioning.FigLatencyP50), true, goalDefaultLatencyVsBaseline, 2, " s"),
					bench.RatioGoal(fmt.Sprintf("latency p99 (claim created → Bound) %s ≤ %.1f × %s%s", name, goalDefaultLatencyVsBaseline, base.Variant.Name, at),
						judged.Spread(provisioning.FigLatencyP99), base.Spread(provisioning.FigLatencyP99), true, goalDefaultLatencyVsBaseline, 2, " s"))
			case provisioning.TunedLimits.Short:
				goals = append(goals,
					bench.RatioGoal(fmt.Sprintf("throughput %s ≥ %.1f × %s%s", name, goalTunedThroughputVsBaseline, base.Variant.Name, at),
						judged.Spread(provisioning.FigThroughput), base.Spread(provisioning.FigThroughput), false, goalTunedThroughputVsBaseline, 1, " claims/s"))
			}
		}
		if !rep.Deletes() {
			continue
		}
		for _, v := range rep.Ours() {
			goals = append(goals, bench.RatioGoal(fmt.Sprintf("sidecar API requests per deleted volume, %s ≤ %s%s", v.Variant.Name, base.Variant.Name, at),
				v.Spread(provisioning.FigDelRequests), base.Spread(provisioning.FigDelRequests), true, goalDeletionRequestsVsBaseline, 2, ""))
		}
	}
	return goals
}

// writeGoals is the table of the goals the benchmark is judged by.
func (o *Overview) writeGoals(b *strings.Builder) {
	b.WriteString("## Goals\n\n")
	t := &bench.Table{Header: []string{"goal", "measured", "met"}}
	for _, g := range o.Goals() {
		t.Add(g.Goal, g.Measured, yesNo(g.Met))
	}
	t.Write(b)
	if base := o.baselineVariant(); base != nil {
		fmt.Fprintf(b, "Goals against the baseline (%s) compare medians over the runs: ours / baseline, then ours vs the baseline's figure.\n\n", base.Upstream())
	}
	for _, r := range o.Provisioning {
		for _, v := range r.Report.Ours() {
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
func errorKinds(r *provisioning.Report) []string {
	var kinds []string
	for _, v := range r.Ours() {
		for _, run := range v.Runs {
			for _, ph := range r.MeasuredPhases() {
				for k := range ph.Get(run).SidecarErrors {
					if s := ph.Name + ": " + k; !slices.Contains(kinds, s) {
						kinds = append(kinds, s)
					}
				}
			}
		}
	}
	return kinds
}
