package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// writeGoals is the table of the goals the benchmark is judged by.
func (o *Overview) writeGoals(b *strings.Builder) {
	b.WriteString("## Goals\n\n")
	t := &table{header: []string{"goal", "measured", "met"}}
	for _, r := range o.Provisioning {
		a, c := r.Report.pair()
		if a == nil {
			continue
		}
		q := r.Report.throughputRatio()
		paired := r.Report.pairedRatios(func(x *RunResult) float64 { return x.Throughput() })
		t.add(fmt.Sprintf("throughput %s ≥ %.1f × %s, %s", a.Variant.Name, goalThroughputRatio, c.Variant.Name, r.Scenario.Name()),
			fmt.Sprintf("%.2f (run by run %s)", q, fmtSpread(paired, 2, "")), yesNo(q >= goalThroughputRatio))
	}
	if o.Memory != nil {
		measured, met := o.Memory.goalSummary()
		t.add(fmt.Sprintf("sidecar peak RSS with %s claims and PVs cached < %.0f MiB", thousands(o.Memory.Setup.Objects), o.Memory.GoalMiB), measured, yesNo(met))
	}
	failures, sidecarErrs, runs := 0, 0, 0
	var errKinds []string
	for _, r := range o.Provisioning {
		for _, v := range r.Report.Variants {
			for _, run := range v.Runs {
				f, s := run.errorsPerRun()
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
		t.add("zero errors in every provisioning run", detail, yesNo(failures == 0 && sidecarErrs == 0))
	}
	if o.Memory != nil {
		t.add("zero errors in every memory run", problemCount(o.Memory.HasProblems()), yesNo(!o.Memory.HasProblems()))
	}
	if o.PVCProtection != nil {
		t.add("zero errors in every PVC protection run", problemCount(o.PVCProtection.HasProblems()), yesNo(!o.PVCProtection.HasProblems()))
	}
	t.write(b)
	if sidecarErrs > 0 {
		b.WriteString("The sidecar's non-2xx answers are listed, with what causes them, in the Errors section of each scenario's report.\n\n")
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

// errorKinds names the sidecar's non-2xx answers of every run, e.g.
// "deletion: delete persistentvolumes 404".
func (r *Report) errorKinds() []string {
	var kinds []string
	for _, v := range r.Variants {
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
// run's peak RSS (the goal holds only if every run stays under it) and each
// variant's median, and whether the goal was met.
func (r *MemoryReport) goalSummary() (measured string, met bool) {
	worst := r.worstPeak()
	if math.IsNaN(worst) {
		return "not measured", false
	}
	var medians []string
	for _, v := range r.Variants {
		s := r.spread(v.Name, func(m *MemoryRun) float64 { return mib(m.End.PeakRSS) })
		medians = append(medians, fmt.Sprintf("%s %s", v.Name, fmtSpread(s, 1, " MiB")))
	}
	return fmt.Sprintf("worst run %.1f MiB (%s)", worst, strings.Join(medians, "; ")), worst < r.GoalMiB
}
