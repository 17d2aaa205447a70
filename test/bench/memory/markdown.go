package memory

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// HasProblems tells whether setting up or any run went wrong: an error, a
// batch claim not Bound, or something of the batch left behind. The
// memory limit sweep's runs are not counted: failing is how a limit too
// small shows.
func (r *Report) HasProblems() bool {
	if len(r.Setup.Problems) > 0 {
		return true
	}
	for _, run := range r.Runs {
		if len(run.Problems) > 0 || run.BatchBound < r.Batch || run.ClaimsLeft > 0 || run.PVsLeft > 0 || run.VolumesLeft > 0 {
			return true
		}
	}
	return false
}

// Markdown writes the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	o, e := r.Options, r.Environment
	sizes := r.Sizes()
	fmt.Fprintf(&b, "## Sidecar memory and CPU with %s claims and PVs cached\n\n", bench.ThousandsRange(sizes))
	b.WriteString(bench.RanLine(r.Invocation, o.Quick, r.Started, r.Duration))
	fmt.Fprintf(&b, "Commit %s; csi-provisioner `%s`; %s; Kubernetes %s, etcd %s.\n\n", e.Built(), e.Sidecar, e.Machine(), e.KubernetesVersion(), e.EtcdVersion())
	r.writeSetup(&b)
	var variants []string
	for _, v := range r.Variants {
		variants = append(variants, v.Describe())
	}
	fmt.Fprintf(&b, "At each size, each run starts a new csi-provisioner on that cluster (`%s -v=%d --http-endpoint=127.0.0.1:<port>`, under the shipped RBAC plus %s) with, per variant, %s; %s per variant, interleaved. "+
		"Right after starting it, the run creates a claim of an Immediate class of the driver in namespace `%s` and reads it every %s until it is Bound (first claim Bound: from the sidecar's start, its cache sync, provisioning and the binder's binding together). "+
		"It waits until the sidecar logs that its caches synced (%s), then until its work queues are empty and it uses under %.0f%% of a core over %s (idle), then provisions %d more claims, waits until they are Bound, deletes them and the first and waits until the claims, their PVs and the driver's volumes are gone. "+
		"Then it reads VmHWM (peak RSS) and VmRSS from `/proc/<pid>/status`, user plus system CPU time from `/proc/<pid>/stat`, and the Go heap from the sidecar's metrics, and stops the sidecar.\n\n",
		strings.Join(r.SidecarArgs, " "), o.SidecarVerbosity, "`"+framework.VolumeProtectionRBACManifest+"`",
		strings.Join(variants, "; "), plural(o.Runs, "run"), bench.ClaimNamespace, firstClaimPoll,
		strings.Trim(syncedMessage, `"`), 100*quietCPU.Seconds()/quietWindow.Seconds(), quietWindow, r.Batch)
	if r.BaselineVariant() != nil {
		fmt.Fprintf(&b, "The baseline runs on the same stack, whose RBAC is installed once before any sidecar starts: it runs under the shipped RBAC (a superset of upstream's own, `%s`, which its provisioning runs use), with only the flags above, which upstream has too (`--http-endpoint` serves its metrics, Go runtime and work queues included, as ours does).\n\n", bench.UpstreamRBACManifest)
	}
	r.writeScaling(&b)
	r.writeGoals(&b)
	for _, pairs := range sizes {
		r.writeSize(&b, pairs)
	}
	if r.Limits != nil {
		r.Limits.writeMarkdown(&b, r.Batch)
	}
	r.writeRuns(&b)
	return b.String()
}

// writeGoals lists the memory goals and how the runs met them.
func (r *Report) writeGoals(b *strings.Builder) {
	b.WriteString("Goals:\n\n")
	for _, g := range r.Goals() {
		switch {
		case g.Measured == "" || strings.HasPrefix(g.Measured, "not measured"):
			fmt.Fprintf(b, "- %s: %s\n", g.Goal, cmp.Or(g.Measured, "not measured"))
		case g.Met:
			fmt.Fprintf(b, "- %s: **met** (%s)\n", g.Goal, g.Measured)
		default:
			fmt.Fprintf(b, "- %s: **not met** (%s)\n", g.Goal, g.Measured)
		}
	}
	b.WriteString("\nThe budget judges every run of ours, not the baseline; the goals against the baseline compare medians, ours / baseline.\n\n")
}

// writeSize is one size's table: every variant's figures, the median of
// its runs, (min–max) when they differ.
func (r *Report) writeSize(b *strings.Builder, pairs int) {
	fmt.Fprintf(b, "### With %s claims and PVs cached\n\n", bench.Thousands(pairs))
	base := r.BaselineVariant()
	header := []string{"variant", "peak RSS", "RSS at end", "peak RSS when idle", "Go heap in use at end", "CPU to sync", "CPU in all", "sync time", "first claim Bound"}
	if base != nil {
		header = append(header, "peak RSS / "+base.Name, "first claim / "+base.Name)
	}
	t := bench.Table{Header: header, Right: bench.RightFrom(1, len(header))}
	for _, v := range r.Variants {
		at := func(f func(*SidecarRun) float64) measure.Spread { return r.SpreadAt(v.Name, pairs, f) }
		cells := []string{v.Name,
			bench.FmtSpread(r.PeakRSSAt(v.Name, pairs), 1, " MiB"),
			bench.FmtSpread(at(func(m *SidecarRun) float64 { return measure.MiB(m.End.RSS) }), 1, " MiB"),
			bench.FmtSpread(r.IdlePeakRSSAt(v.Name, pairs), 1, " MiB"),
			bench.FmtSpread(at(func(m *SidecarRun) float64 { return mibOrNaN(m.Heap.HeapInuse) }), 1, " MiB"),
			bench.FmtSpread(at(func(m *SidecarRun) float64 { return measure.Seconds(m.SyncCPU) }), 2, " s"),
			bench.FmtSpread(at(func(m *SidecarRun) float64 { return measure.Seconds(m.CPU) }), 2, " s"),
			bench.FmtSpread(at(func(m *SidecarRun) float64 { return measure.Seconds(m.SyncTime) }), 2, " s"),
			bench.FmtSpread(r.FirstClaimAt(v.Name, pairs), 2, " s"),
		}
		if base != nil {
			peak, first := "", ""
			if !v.IsBaseline() {
				peak = bench.FmtRatio(r.vsBaselineAt(v.Name, pairs, peakRSSMiB))
				first = bench.FmtRatio(measure.Ratio(r.FirstClaimAt(v.Name, pairs), r.FirstClaimAt(base.Name, pairs)))
			}
			cells = append(cells, peak, first)
		}
		t.Add(cells...)
	}
	t.Write(b)
	b.WriteString("CPU is the sidecar's user plus system time from its start; sync time is from its start until the log line. ")
	b.WriteString(r.breakdown(pairs) + "\n\n")
}

// writeRuns is every run's figures, the sweep's apart.
func (r *Report) writeRuns(b *strings.Builder) {
	b.WriteString("### Runs\n\n")
	rt := bench.Table{Header: []string{"#", "pairs", "variant", "run", "sync time", "CPU to sync", "first claim Bound", "idle after", "peak RSS idle", "batch Bound", "batch gone", "peak RSS", "RSS at end (allocated + binary)", "CPU", "heap in use", "Go runtime", "other CPU", "run time", "problems"}}
	rt.Right = append(bench.RightFrom(0, 18), false)
	rt.Right[2] = false
	for _, run := range r.Runs {
		rt.Add(fmt.Sprint(run.Order), bench.Thousands(r.pairsOf(run)), run.Variant, fmt.Sprint(run.Run),
			bench.FmtSeconds(run.SyncTime), bench.FmtSeconds(run.SyncCPU), bench.FmtSeconds(run.FirstClaimBound), bench.FmtSeconds(run.IdleTime), fmtMiB(run.Idle.PeakRSS),
			fmt.Sprintf("%d/%d in %s", run.BatchBound, r.Batch, bench.FmtSeconds(run.BatchProvision)), bench.FmtSeconds(run.BatchDelete),
			fmtMiB(run.End.PeakRSS), fmt.Sprintf("%s (%s + %s)", fmtMiB(run.End.RSS), fmtMiB(run.End.RSSAnon), fmtMiB(run.End.RSSFile)),
			bench.FmtSeconds(run.CPU), fmtMiB(run.Heap.HeapInuse), fmtMiB(run.Heap.Sys), fmt.Sprintf("%.2f cores", run.OtherCores),
			bench.FmtSeconds(run.Wall), strings.Join(append(run.leftovers(), run.Problems...), "; "))
	}
	rt.Write(b)
	if s := r.Setup; len(s.Problems) > 0 {
		fmt.Fprintf(b, "Setup problems: %s\n\n", strings.Join(s.Problems, "; "))
	}
}

// breakdown says what the RSS at the end of the runs of ours at a size is
// made of.
func (r *Report) breakdown(pairs int) string {
	var rss, anon, file, sys, inuse []float64
	for _, run := range r.runsAt(pairs) {
		if !r.isBaseline(run.Variant) {
			rss = append(rss, measure.MiB(run.End.RSS))
			anon = append(anon, mibOrNaN(run.End.RSSAnon))
			file = append(file, mibOrNaN(run.End.RSSFile))
			sys = append(sys, mibOrNaN(run.Heap.Sys))
			inuse = append(inuse, mibOrNaN(run.Heap.HeapInuse))
		}
	}
	m := func(v []float64) float64 { return measure.SpreadOf(v).Median }
	if math.IsNaN(m(anon)) || math.IsNaN(m(sys)) {
		return ""
	}
	return fmt.Sprintf("At the end of a run of ours the RSS was %.0f MiB (median of all runs at this size): %.0f MiB allocated by the process (`RssAnon`; its Go runtime held %.0f MiB, of which %.0f MiB heap in use, live objects and garbage not yet collected, the heap growing to about twice its live size between collections at the default GOGC) and %.0f MiB of its binary's code and data (`RssFile`).",
		m(rss), m(anon), m(sys), m(inuse), m(file))
}

// leftovers describes what a run's batch left behind.
func (run *SidecarRun) leftovers() []string {
	var out []string
	if run.ClaimsLeft > 0 || run.PVsLeft > 0 || run.VolumesLeft > 0 {
		out = append(out, fmt.Sprintf("left: %d claims, %d PVs, %d driver volumes", run.ClaimsLeft, run.PVsLeft, run.VolumesLeft))
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// mibOrNaN is bytes in MiB, NaN when not read.
func mibOrNaN(bytes int64) float64 {
	if bytes <= 0 {
		return math.NaN()
	}
	return measure.MiB(bytes)
}

// secondsOrNaN is a duration in seconds, NaN when not measured.
func secondsOrNaN(d time.Duration) float64 {
	if d <= 0 {
		return math.NaN()
	}
	return d.Seconds()
}

// fmtMiB writes bytes in MiB, "–" when not read.
func fmtMiB(bytes int64) string {
	if bytes <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f MiB", measure.MiB(bytes))
}
