package bench

import (
	"fmt"
	"math"
	"strings"
)

// HasProblems tells whether any run went wrong.
func (r *DeletionReport) HasProblems() bool {
	for _, run := range r.Runs {
		if len(run.Problems) > 0 || run.Left > 0 {
			return true
		}
	}
	return false
}

func (r *DeletionReport) spread(controller string, f func(*DeletionRun) float64) Spread {
	var v []float64
	for _, run := range r.Runs {
		if run.Controller == controller && len(run.Problems) == 0 {
			v = append(v, f(run))
		}
	}
	return spreadOf(v)
}

// Markdown writes the report.
func (r *DeletionReport) Markdown() string {
	var b strings.Builder
	o := r.Options
	e := r.Environment
	fmt.Fprintf(&b, "# PVC protection benchmark\n\n")
	b.WriteString(ranLine(r.Invocation, o.Quick, r.Started, r.Duration))
	e.writeProvenance(&b)
	fmt.Fprintf(&b, "- Workload per run: namespace `%s` with %s scheduled pods (each using a claim of its own) and %s unused claims of a WaitForFirstConsumer class of the driver (never provisioned, so only the protection controller acts); the %s claims are deleted by %d concurrent calls; the time is from the first delete call until the last claim left the API\n",
		deletionNamespace, thousands(o.Pods), thousands(o.Claims), thousands(o.Claims), o.Creator.Workers)
	fmt.Fprintf(&b, "- One PVC protection controller per run: kube-controller-manager's (`%s`) or the sidecar's (`%s`); runs interleaved, %d per controller, each on a fresh control plane\n",
		strings.Join(o.KCMArgs, " "), strings.Join(append(append([]string{}, o.SidecarArgs...), SidecarPVCProtection.SidecarArgs...), " "), o.Runs)
	fmt.Fprintf(&b, "- Pod LISTs and watches: the controller's requests in the kube-apiserver audit log; bytes: kube-apiserver's `apiserver_response_sizes` for every pod LIST during the deletions\n\n")

	t := table{header: []string{"controller", "time until all gone", "pod LISTs", "bytes read by pod LISTs", "short pod watches", "claim writes"}, right: rightFrom(1, 6)}
	for _, c := range o.Controllers {
		t.add(c.Name,
			fmtSpread(r.spread(c.Name, runSeconds), 2, " s"),
			fmtSpread(r.spread(c.Name, func(d *DeletionRun) float64 { return float64(d.PodLists) }), 0, ""),
			fmtSpread(r.spread(c.Name, func(d *DeletionRun) float64 { return d.PodListBytes }), 0, " B"),
			fmtSpread(r.spread(c.Name, func(d *DeletionRun) float64 { return float64(d.PodWatches) }), 0, ""),
			fmtSpread(r.spread(c.Name, func(d *DeletionRun) float64 { return float64(d.ClaimWrites) }), 0, ""),
		)
	}
	t.write(&b)

	kcm := r.spread(KCMPVCProtection.Name, runSeconds)
	ours := r.spread(SidecarPVCProtection.Name, runSeconds)
	kcmBytes := r.spread(KCMPVCProtection.Name, func(d *DeletionRun) float64 { return d.PodListBytes })
	ourBytes := r.spread(SidecarPVCProtection.Name, func(d *DeletionRun) float64 { return d.PodListBytes })
	if !math.IsNaN(kcm.Median) && !math.IsNaN(ours.Median) {
		fmt.Fprintf(&b, "Goals: faster than kube-controller-manager: %.2f s against %.2f s (%s of its time); at most a tenth of the bytes its pod LISTs read: %s of them.\n\n",
			ours.Median, kcm.Median, pct(ratio(ours, kcm)), pctOrZero(ourBytes, kcmBytes))
	}

	r.writeQuiet(&b)

	b.WriteString("## Runs\n\n")
	rt := table{header: []string{"controller", "run", "time", "pod LISTs", "pod LIST bytes", "pod watches", "claim writes", "left", "problems"}, right: rightFrom(1, 8)}
	for _, run := range r.Runs {
		rt.add(run.Controller, fmt.Sprint(run.Run), fmt.Sprintf("%.2f s", run.Duration.Seconds()), fmt.Sprint(run.PodLists),
			fmt.Sprintf("%.0f", run.PodListBytes), fmt.Sprint(run.PodWatches), fmt.Sprint(run.ClaimWrites), fmt.Sprint(run.Left), strings.Join(run.Problems, "; "))
	}
	rt.write(&b)
	return b.String()
}

// goals judges the sidecar's controller against kube-controller-manager's:
// the bulk deletion's time and a quiet namespace's single deletion, each a
// ratio of the medians over the runs.
func (r *DeletionReport) goals() []Goal {
	ours, kcm := SidecarPVCProtection.Name, KCMPVCProtection.Name
	goals := []Goal{ratioGoal(fmt.Sprintf("PVC protection, %s unused claims deleted among %s pods: %s ≤ %.1f × %s", thousands(r.Options.Claims), thousands(r.Options.Pods), ours, goalPVCBulkVsKCM, kcm),
		r.spread(ours, runSeconds), r.spread(kcm, runSeconds), true, goalPVCBulkVsKCM, 2, " s")}
	if r.Options.QuietDeletions > 0 {
		goals = append(goals, r.quietGoal())
	}
	return goals
}

// quietGoal judges a quiet namespace's single deletions: ours no later
// than kube-controller-manager's, medians over every deletion.
func (r *DeletionReport) quietGoal() Goal {
	ours, kcm := SidecarPVCProtection.Name, KCMPVCProtection.Name
	return ratioGoal(fmt.Sprintf("PVC protection, one claim deleted alone in a quiet namespace: %s ≤ %s", ours, kcm),
		r.quietSpread(ours), r.quietSpread(kcm), true, goalPVCQuietVsKCM, 3, " s")
}

// runSeconds is a run's time until every claim was gone.
func runSeconds(d *DeletionRun) float64 { return d.Duration.Seconds() }

// pctOrZero is a's share of b, written as a percentage; "0%" when a is
// zero whatever b is.
func pctOrZero(a, b Spread) string {
	if a.Median == 0 {
		return "0%"
	}
	return pct(ratio(a, b))
}

// quietSpread is every single quiet deletion of a controller's runs
// without problems, in seconds.
func (r *DeletionReport) quietSpread(controller string) Spread {
	var v []float64
	for _, run := range r.Runs {
		if run.Controller != controller || len(run.Problems) > 0 {
			continue
		}
		for _, d := range run.Quiet {
			v = append(v, d.Seconds())
		}
	}
	return spreadOf(v)
}

// writeQuiet is the section of the single deletions in a quiet namespace.
func (r *DeletionReport) writeQuiet(b *strings.Builder) {
	o := r.Options
	if o.QuietDeletions <= 0 {
		return
	}
	fmt.Fprintf(b, "## One claim deleted alone in a quiet namespace\n\n")
	fmt.Fprintf(b, "After the batch, in namespace `%s` with %d scheduled pods, %d unused claims are deleted one at a time, each %s after the previous one left: the time from the delete call until the claim left the API, over every deletion of every run.\n\n",
		quietNamespace, o.QuietPods, o.QuietDeletions, quietGap)
	t := table{header: []string{"controller", "median", "min", "max"}, right: rightFrom(1, 4)}
	for _, c := range o.Controllers {
		s := r.quietSpread(c.Name)
		t.add(c.Name, fmtSecondsValue(s.Median), fmtSecondsValue(s.Min), fmtSecondsValue(s.Max))
	}
	t.write(b)
	kcm, ours := r.quietSpread(KCMPVCProtection.Name), r.quietSpread(SidecarPVCProtection.Name)
	if !math.IsNaN(kcm.Median) && !math.IsNaN(ours.Median) {
		verdict := "met"
		if !r.quietGoal().Met {
			verdict = "not met"
		}
		fmt.Fprintf(b, "Goal: released no later than kube-controller-manager releases it: %s (median %.3f s against %.3f s).\n\n", verdict, ours.Median, kcm.Median)
	}
}

func fmtSecondsValue(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.3f s", v)
}
