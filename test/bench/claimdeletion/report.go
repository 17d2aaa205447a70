package claimdeletion

import (
	"fmt"
	"math"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// PVC protection against kube-controller-manager's controller: a bulk
// deletion in half its time at most, and a single claim in a quiet
// namespace released no later than it releases it.
const (
	GoalBulkVsKCM  = 0.5
	GoalQuietVsKCM = 1.0
)

// HasProblems tells whether any run went wrong.
func (r *Report) HasProblems() bool {
	for _, run := range r.Runs {
		if len(run.Problems) > 0 || run.Left > 0 {
			return true
		}
	}
	return false
}

func (r *Report) spread(controller string, f func(*RunResult) float64) measure.Spread {
	var v []float64
	for _, run := range r.Runs {
		if run.Controller == controller && len(run.Problems) == 0 {
			v = append(v, f(run))
		}
	}
	return measure.SpreadOf(v)
}

// Markdown writes the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	o := r.Options
	e := r.Environment
	fmt.Fprintf(&b, "# PVC protection benchmark\n\n")
	b.WriteString(bench.RanLine(r.Invocation, o.Quick, r.Started, r.Duration))
	e.WriteProvenance(&b)
	fmt.Fprintf(&b, "- Workload per run: namespace `%s` with %s scheduled pods (each using a claim of its own) and %s unused claims of a WaitForFirstConsumer class of the driver (never provisioned, so only the protection controller acts); the %s claims are deleted by %d concurrent calls; the time is from the first delete call until the last claim left the API\n",
		deletionNamespace, bench.Thousands(o.Pods), bench.Thousands(o.Claims), bench.Thousands(o.Claims), o.Creator.Workers)
	fmt.Fprintf(&b, "- One PVC protection controller per run: kube-controller-manager's (`%s`) or the sidecar's (`%s`); runs interleaved, %d per controller, each on a fresh control plane\n",
		strings.Join(o.KCMArgs, " "), strings.Join(append(append([]string{}, o.SidecarArgs...), SidecarPVCProtection.SidecarArgs...), " "), o.Runs)
	fmt.Fprintf(&b, "- Pod LISTs and watches: the controller's requests in the kube-apiserver audit log; bytes: kube-apiserver's `apiserver_response_sizes` for every pod LIST during the deletions\n\n")

	t := bench.Table{Header: []string{"controller", "time until all gone", "pod LISTs", "bytes read by pod LISTs", "short pod watches", "claim writes"}, Right: bench.RightFrom(1, 6)}
	for _, c := range o.Controllers {
		t.Add(c.Name,
			bench.FmtSpread(r.GoneIn(c.Name), 2, " s"),
			bench.FmtSpread(r.spread(c.Name, func(d *RunResult) float64 { return float64(d.PodLists) }), 0, ""),
			bench.FmtSpread(r.spread(c.Name, func(d *RunResult) float64 { return d.PodListBytes }), 0, " B"),
			bench.FmtSpread(r.spread(c.Name, func(d *RunResult) float64 { return float64(d.PodWatches) }), 0, ""),
			bench.FmtSpread(r.spread(c.Name, func(d *RunResult) float64 { return float64(d.ClaimWrites) }), 0, ""),
		)
	}
	t.Write(&b)

	kcm := r.GoneIn(KCMPVCProtection.Name)
	ours := r.GoneIn(SidecarPVCProtection.Name)
	kcmBytes := r.spread(KCMPVCProtection.Name, func(d *RunResult) float64 { return d.PodListBytes })
	ourBytes := r.spread(SidecarPVCProtection.Name, func(d *RunResult) float64 { return d.PodListBytes })
	if !math.IsNaN(kcm.Median) && !math.IsNaN(ours.Median) {
		fmt.Fprintf(&b, "Goals: faster than kube-controller-manager: %.2f s against %.2f s (%s of its time); at most a tenth of the bytes its pod LISTs read: %s of them.\n\n",
			ours.Median, kcm.Median, bench.Pct(measure.Ratio(ours, kcm)), pctOrZero(ourBytes, kcmBytes))
	}

	r.writeQuiet(&b)

	b.WriteString("## Runs\n\n")
	rt := bench.Table{Header: []string{"controller", "run", "time", "pod LISTs", "pod LIST bytes", "pod watches", "claim writes", "left", "problems"}, Right: bench.RightFrom(1, 8)}
	for _, run := range r.Runs {
		rt.Add(run.Controller, fmt.Sprint(run.Run), fmt.Sprintf("%.2f s", run.Duration.Seconds()), fmt.Sprint(run.PodLists),
			fmt.Sprintf("%.0f", run.PodListBytes), fmt.Sprint(run.PodWatches), fmt.Sprint(run.ClaimWrites), fmt.Sprint(run.Left), strings.Join(run.Problems, "; "))
	}
	rt.Write(&b)
	return b.String()
}

// Goals judges the sidecar's controller against kube-controller-manager's:
// the bulk deletion's time and a quiet namespace's single deletion, each a
// ratio of the medians over the runs.
func (r *Report) Goals() []bench.Goal {
	ours, kcm := SidecarPVCProtection.Name, KCMPVCProtection.Name
	goals := []bench.Goal{bench.RatioGoal(fmt.Sprintf("PVC protection, %s unused claims deleted among %s pods: %s ≤ %.1f × %s", bench.Thousands(r.Options.Claims), bench.Thousands(r.Options.Pods), ours, GoalBulkVsKCM, kcm),
		r.GoneIn(ours), r.GoneIn(kcm), true, GoalBulkVsKCM, 2, " s")}
	if r.Options.QuietDeletions > 0 {
		goals = append(goals, r.quietGoal())
	}
	return goals
}

// quietGoal judges a quiet namespace's single deletions: ours no later
// than kube-controller-manager's, medians over every deletion.
func (r *Report) quietGoal() bench.Goal {
	ours, kcm := SidecarPVCProtection.Name, KCMPVCProtection.Name
	return bench.RatioGoal(fmt.Sprintf("PVC protection, one claim deleted alone in a quiet namespace: %s ≤ %s", ours, kcm),
		r.quietSpread(ours), r.quietSpread(kcm), true, GoalQuietVsKCM, 3, " s")
}

// runSeconds is a run's time until every claim was gone.
func runSeconds(d *RunResult) float64 { return d.Duration.Seconds() }

// GoneIn is a controller's time until every claim was gone, in seconds,
// over its runs without problems.
func (r *Report) GoneIn(controller string) measure.Spread { return r.spread(controller, runSeconds) }

// pctOrZero is a's share of b, written as a percentage; "0%" when a is
// zero whatever b is.
func pctOrZero(a, b measure.Spread) string {
	if a.Median == 0 {
		return "0%"
	}
	return bench.Pct(measure.Ratio(a, b))
}

// quietSpread is every single quiet deletion of a controller's runs
// without problems, in seconds.
func (r *Report) quietSpread(controller string) measure.Spread {
	var v []float64
	for _, run := range r.Runs {
		if run.Controller != controller || len(run.Problems) > 0 {
			continue
		}
		for _, d := range run.Quiet {
			v = append(v, d.Seconds())
		}
	}
	return measure.SpreadOf(v)
}

// writeQuiet is the section of the single deletions in a quiet namespace.
func (r *Report) writeQuiet(b *strings.Builder) {
	o := r.Options
	if o.QuietDeletions <= 0 {
		return
	}
	fmt.Fprintf(b, "## One claim deleted alone in a quiet namespace\n\n")
	fmt.Fprintf(b, "After the batch, in namespace `%s` with %d scheduled pods, %d unused claims are deleted one at a time, each %s after the previous one left: the time from the delete call until the claim left the API, over every deletion of every run.\n\n",
		quietNamespace, o.QuietPods, o.QuietDeletions, quietGap)
	t := bench.Table{Header: []string{"controller", "median", "min", "max"}, Right: bench.RightFrom(1, 4)}
	for _, c := range o.Controllers {
		s := r.quietSpread(c.Name)
		t.Add(c.Name, fmtSecondsValue(s.Median), fmtSecondsValue(s.Min), fmtSecondsValue(s.Max))
	}
	t.Write(b)
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
