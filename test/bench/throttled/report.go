package throttled

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// HasProblems tells whether any run went wrong: a component that died, a
// warm-up that failed, a stack that did not stop cleanly. A phase that ran
// out of time is not one: against a throttled backend a sidecar that
// retries each claim on its own back-off may need hours, which is what
// this part shows (the tables mark it, the goals judge it).
func (r *Report) HasProblems() bool {
	for _, run := range r.Runs {
		if len(run.Problems) > 0 {
			return true
		}
	}
	return false
}

// baseline is the baseline configuration, nil when none ran.
func (r *Report) baseline() *bench.Variant {
	for i := range r.Variants {
		if r.Variants[i].IsBaseline() {
			return &r.Variants[i]
		}
	}
	return nil
}

// Markdown writes the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Throttled backend benchmark\n\n")
	b.WriteString(bench.RanLine(r.Invocation, r.Options.Quick, r.Started, r.Duration))
	r.Environment.WriteProvenance(&b)
	r.writeSetup(&b)
	r.writeGoals(&b)
	for _, v := range r.Variants {
		r.writeVariant(&b, v)
	}
	r.writeRuns(&b)
	return b.String()
}

func (r *Report) writeSetup(b *strings.Builder) {
	o := r.Options
	fmt.Fprintf(b, "- Backend: the mock driver's API quota, %v storage calls a second (CreateVolume, DeleteVolume) in bursts of %d, one token bucket for every caller; a call past it fails at once with ResourceExhausted, as a cloud API throttles\n",
		o.APIRateLimit, o.APIRateBurst)
	fmt.Fprintf(b, "- Workload per run: after one warm-up claim (provisioned, deleted, then %.0f s for the quota to fill), %s claims of an Immediate class of the driver in namespace `%s`, created at once by %d concurrent calls; the time is from the first create call until the last claim is Bound. Once the sidecar is done with them (no provisioning-protection finalizer left), all are deleted at once; the time is until the last PV is gone\n",
		bench.Drain.Seconds(), bench.Thousands(o.Claims), bench.ClaimNamespace, o.Creator.Workers)
	var variants []string
	for _, v := range r.Variants {
		variants = append(variants, v.Describe())
	}
	fmt.Fprintf(b, "- Sidecar: `%s -v=%d` (CSI `--timeout=30s`), retries at each binary's defaults (each claim on its own back-off, 1 s doubling up to 5 min, upstream's and ours), then per configuration: %s; runs interleaved, %d per configuration, each on a fresh control plane",
		strings.Join(o.SidecarArgs, " "), o.SidecarVerbosity, strings.Join(variants, "; "), o.Runs)
	if r.baseline() != nil {
		fmt.Fprintf(b, "; the baseline under upstream's RBAC (`%s`)", bench.UpstreamRBACManifest)
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "- Calls: the driver's log, each call it answered in the phase (until the phase's end and %.0f s more); CPU: the sidecar's user and system time over the phase\n", bench.Drain.Seconds())
	fmt.Fprintf(b, "- Each phase gives up after %.0f min: the run is then reported with what was left, and its figures, marked ≥, are lower bounds; deletion is not run after a provisioning that gave up\n\n", o.PhaseTimeout.Minutes())
}

// writeGoals writes the goals, and where "gate on" (without adaptive
// concurrency) stands against the same targets, not judged.
func (r *Report) writeGoals(b *strings.Builder) {
	b.WriteString("## Goals\n\n")
	if r.baseline() == nil {
		b.WriteString("Not measured: they compare with an upstream release, which runs with `--baseline=PATH` (`make bench BASELINE=PATH`).\n\n")
	}
	t := bench.Table{Header: []string{"goal", "met", Adaptive.Name, bench.GateOn.Name + " (not judged)"}}
	for i, g := range r.Goals() {
		fg := goalFigures[i]
		t.Add(fmt.Sprintf("%s ≤ %g × baseline", fg.fig.name, fg.target), metText(g), g.Measured, r.goal(bench.GateOn.Name, fg.fig, fg.target).Measured)
	}
	t.Write(b)
}

func metText(g bench.Goal) string {
	switch {
	case g.Value == nil:
		return "–"
	case g.Met:
		return "**met**"
	}
	return "**not met**"
}

// writeVariant writes a configuration's figures: median (min–max) over its
// runs without problems and, for ours, the ratio to the baseline's median.
func (r *Report) writeVariant(b *strings.Builder, v bench.Variant) {
	n := 0
	for _, run := range r.Runs {
		if run.Variant == v.Name && len(run.Problems) == 0 {
			n++
		}
	}
	fmt.Fprintf(b, "## %s\n\n%s; %s.\n\n", v.Name, v.Describe(), plural(n, "run"))
	withRatio := r.baseline() != nil && !v.IsBaseline()
	t := bench.Table{Header: []string{"figure", "median (min–max)"}, Right: []bool{false, true}}
	if withRatio {
		t.Header = append(t.Header, "× baseline")
		t.Right = append(t.Right, true)
	}
	for _, f := range figures {
		ours := r.spread(v.Name, f)
		row := []string{f.name, ours.format(f)}
		if withRatio {
			row = append(row, formatRatio(ratio(ours, r.spread(bench.BaselineName, f))))
		}
		t.Add(row...)
	}
	t.Write(b)
}

func (r *Report) writeRuns(b *strings.Builder) {
	b.WriteString("## Runs\n\n")
	t := bench.Table{
		Header: []string{"configuration", "run", "order", "Bound", "until all Bound", "CreateVolume failed", "succeeded", "until all PVs gone", "DeleteVolume failed", "succeeded", "sidecar CPU", "problems"},
		Right:  append(bench.RightFrom(1, 11), false),
	}
	for _, run := range r.Runs {
		pvs, delFailed, delOK, cpu := "not run", "–", "–", fmtCPU(run.Provisioning.SidecarCPU)
		if !run.DeletionSkipped {
			pvs = phaseTime(run.Deletion, fmt.Sprintf("%d PVs left", run.PVsLeft))
			delFailed, delOK = fmt.Sprint(run.Deletion.Calls.Failed), fmt.Sprint(run.Deletion.Calls.Succeeded)
			cpu += " + " + fmtCPU(run.Deletion.SidecarCPU)
		}
		t.Add(run.Variant, fmt.Sprint(run.Run), fmt.Sprint(run.Order), fmt.Sprintf("%d of %d", run.Bound, run.Claims),
			phaseTime(run.Provisioning, fmt.Sprintf("%d left", run.Left())),
			fmt.Sprint(run.Provisioning.Calls.Failed), fmt.Sprint(run.Provisioning.Calls.Succeeded),
			pvs, delFailed, delOK,
			cpu,
			strings.Join(run.Problems, "; "))
	}
	t.Write(b)
	b.WriteString("Sidecar CPU is provisioning + deletion.\n")
}

// fmtCPU writes a phase's sidecar CPU, "–" when it was not read.
func fmtCPU(s float64) string {
	if s <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f s", s)
}

// phaseTime is a phase's duration, or the time it gave up after and what
// was left.
func phaseTime(p Phase, left string) string {
	if p.TimedOut {
		return fmt.Sprintf("≥ %.1f s (gave up, %s)", p.Duration.Seconds(), left)
	}
	if p.Duration <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f s", p.Duration.Seconds())
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// setup is what results.json says of how the part ran; Options itself
// holds the progress writer.
type setup struct {
	Claims       int           `json:"claims"`
	APIRateLimit float64       `json:"apiRateLimit"`
	APIRateBurst int           `json:"apiRateBurst"`
	Runs         int           `json:"runs"`
	SidecarArgs  []string      `json:"sidecarArgs"`
	PhaseTimeout time.Duration `json:"phaseTimeout"`
	Quick        bool          `json:"quick,omitempty"`
}

// MarshalJSON adds the setup and the goals to the report's figures.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	o := r.Options
	return json.Marshal(struct {
		*plain
		Setup setup        `json:"setup"`
		Goals []bench.Goal `json:"goals"`
	}{(*plain)(r), setup{o.Claims, o.APIRateLimit, o.APIRateBurst, o.Runs, o.SidecarArgs, o.PhaseTimeout, o.Quick}, r.Goals()})
}
