package memory

import (
	"fmt"
	"math"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// HasProblems tells whether setting up or any run went wrong: an error, a
// batch claim not Bound, or something of the batch left behind.
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

// measured tells whether a run read the sidecar's memory at all. Runs that
// went wrong later still count: their peak is what the process reached.
func (run *SidecarRun) measured() bool { return run.End.PeakRSS > 0 }

// PeakRSSByVariant is every measured run's peak RSS in MiB, by variant, in
// the order the runs ran: what a plot of the benchmark needs.
func (r *Report) PeakRSSByVariant() map[string][]float64 {
	out := map[string][]float64{}
	for _, run := range r.Runs {
		if run.measured() {
			out[run.Variant] = append(out[run.Variant], measure.MiB(run.End.PeakRSS))
		}
	}
	return out
}

// Spread is a figure over a variant's runs that read the sidecar's memory.
func (r *Report) Spread(variant string, f func(*SidecarRun) float64) measure.Spread {
	var v []float64
	for _, run := range r.Runs {
		if run.Variant == variant && run.measured() {
			v = append(v, f(run))
		}
	}
	return measure.SpreadOf(v)
}

// Markdown writes the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	o, e, s := r.Options, r.Environment, r.Setup
	fmt.Fprintf(&b, "## Sidecar memory and CPU with %s claims and PVs cached\n\n", bench.Thousands(s.Objects))
	b.WriteString(bench.RanLine(r.Invocation, o.Quick, r.Started, r.Duration))
	fmt.Fprintf(&b, "Commit %s; csi-provisioner `%s`; %s; Kubernetes %s, etcd %s.\n\n", e.Built(), e.Sidecar, e.Machine(), e.KubernetesVersion(), e.EtcdVersion())
	fmt.Fprintf(&b, "One control plane (kube-controller-manager with the PV binder and both protection controllers) and the mock driver hold %s claims in namespace `%s`, each Bound to its PV of the driver as csi-provisioner and the binder leave them (StorageClass `%s`, reclaim policy Delete, the provisioner annotations and finalizers, a CSI source with a cloud-style volume handle and four volume attributes). "+
		"The benchmark wrote them in %.1f s, four writes a pair with kube-controller-manager stopped (processes outside the stack used %.2f cores meanwhile); restarted, its binder went through them in %.1f s and rewrote %d of the %s objects (stack start %.1f s). "+
		"No sidecar ran meanwhile.\n\n",
		bench.Thousands(s.Objects), cachedNamespace, bench.ClassName, s.Create.Seconds(), s.OtherCores, s.Settle.Seconds(), s.Rewritten, bench.Thousands(2*s.Objects), s.StackStart.Seconds())
	var variants []string
	for _, v := range r.Variants {
		variants = append(variants, v.Describe())
	}
	fmt.Fprintf(&b, "Each run starts a new csi-provisioner on that cluster (`%s -v=%d --http-endpoint=127.0.0.1:<port>`, under the shipped RBAC plus %s) with, per variant, %s; %s per variant, interleaved. "+
		"A run waits until the sidecar logs that its caches synced (%s), then until its work queues are empty and it uses under %.0f%% of a core over %s (idle), then provisions %d claims of an Immediate class of the driver in namespace `%s`, waits until they are Bound, deletes them and waits until the claims, their PVs and the driver's volumes are gone. "+
		"Then it reads VmHWM (peak RSS) and VmRSS from `/proc/<pid>/status`, user plus system CPU time from `/proc/<pid>/stat`, and the Go heap from the sidecar's metrics, and stops the sidecar.\n\n",
		strings.Join(r.SidecarArgs, " "), o.SidecarVerbosity, "`"+framework.VolumeProtectionRBACManifest+"`",
		strings.Join(variants, "; "), plural(o.Runs, "run"), strings.Trim(syncedMessage, `"`), 100*quietCPU.Seconds()/quietWindow.Seconds(), quietWindow, r.Batch, bench.ClaimNamespace)

	base := r.BaselineVariant()
	if base != nil {
		fmt.Fprintf(&b, "The baseline runs on the same stack, whose RBAC is installed once before any sidecar starts: it runs under the shipped RBAC (a superset of upstream's own, `%s`, which its provisioning runs use), with only the flags above, which upstream v5.1.0 has too (`--http-endpoint` serves its metrics, Go runtime and work queues included, as ours does).\n\n", bench.UpstreamRBACManifest)
	}
	header := []string{"variant", "peak RSS", "RSS at end", "peak RSS when idle", "Go heap in use at end", "CPU to sync", "CPU in all", "sync time"}
	if base != nil {
		header = append(header, "peak RSS / "+base.Name)
	}
	t := bench.Table{Header: header, Right: bench.RightFrom(1, len(header))}
	for _, v := range r.Variants {
		cells := []string{v.Name,
			bench.FmtSpread(r.PeakRSS(v.Name), 1, " MiB"),
			bench.FmtSpread(r.Spread(v.Name, func(m *SidecarRun) float64 { return measure.MiB(m.End.RSS) }), 1, " MiB"),
			bench.FmtSpread(r.IdlePeakRSS(v.Name), 1, " MiB"),
			bench.FmtSpread(r.Spread(v.Name, func(m *SidecarRun) float64 { return mibOrNaN(m.Heap.HeapInuse) }), 1, " MiB"),
			bench.FmtSpread(r.Spread(v.Name, func(m *SidecarRun) float64 { return measure.Seconds(m.SyncCPU) }), 2, " s"),
			bench.FmtSpread(r.Spread(v.Name, func(m *SidecarRun) float64 { return measure.Seconds(m.CPU) }), 2, " s"),
			bench.FmtSpread(r.Spread(v.Name, func(m *SidecarRun) float64 { return measure.Seconds(m.SyncTime) }), 2, " s"),
		}
		if base != nil {
			q := ""
			if !v.IsBaseline() {
				q = bench.FmtRatio(r.peakVsBaseline(v.Name))
			}
			cells = append(cells, q)
		}
		t.Add(cells...)
	}
	t.Write(&b)
	b.WriteString(r.goalLine() + "\n\n")
	if line := r.baselineGoalLine(); line != "" {
		b.WriteString(line + "\n\n")
	}
	b.WriteString("Figures are the median of the runs, (min–max) when they differ. CPU is the sidecar's user plus system time from its start; sync time is from its start until the log line. ")
	b.WriteString(r.breakdown() + "\n\n")
	b.WriteString("### Runs\n\n")
	rt := bench.Table{Header: []string{"#", "variant", "run", "sync time", "CPU to sync", "idle after", "peak RSS idle", "batch Bound", "batch gone", "peak RSS", "RSS at end (allocated + binary)", "CPU", "heap in use", "Go runtime", "other CPU", "run time", "problems"}}
	rt.Right = append(bench.RightFrom(0, 16), false)
	rt.Right[1] = false
	for _, run := range r.Runs {
		rt.Add(fmt.Sprint(run.Order), run.Variant, fmt.Sprint(run.Run),
			bench.FmtSeconds(run.SyncTime), bench.FmtSeconds(run.SyncCPU), bench.FmtSeconds(run.IdleTime), fmtMiB(run.Idle.PeakRSS),
			fmt.Sprintf("%d/%d in %s", run.BatchBound, r.Batch, bench.FmtSeconds(run.BatchProvision)), bench.FmtSeconds(run.BatchDelete),
			fmtMiB(run.End.PeakRSS), fmt.Sprintf("%s (%s + %s)", fmtMiB(run.End.RSS), fmtMiB(run.End.RSSAnon), fmtMiB(run.End.RSSFile)),
			bench.FmtSeconds(run.CPU), fmtMiB(run.Heap.HeapInuse), fmtMiB(run.Heap.Sys), fmt.Sprintf("%.2f cores", run.OtherCores),
			bench.FmtSeconds(run.Wall), strings.Join(append(run.leftovers(), run.Problems...), "; "))
	}
	rt.Write(&b)
	if len(s.Problems) > 0 {
		fmt.Fprintf(&b, "Setup problems: %s\n\n", strings.Join(s.Problems, "; "))
	}
	return b.String()
}

// breakdown says what the RSS at the end of the runs is made of.
func (r *Report) breakdown() string {
	var rss, anon, file, sys, inuse []float64
	for _, run := range r.Runs {
		if run.measured() && !r.isBaseline(run.Variant) {
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
	return fmt.Sprintf("At the end of a run of ours the RSS was %.0f MiB (median of all runs): %.0f MiB allocated by the process (`RssAnon`; its Go runtime held %.0f MiB, of which %.0f MiB heap in use, live objects and garbage not yet collected, the heap growing to about twice its live size between collections at the default GOGC) and %.0f MiB of its binary's code and data (`RssFile`).",
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

// fmtMiB writes bytes in MiB, "–" when not read.
func fmtMiB(bytes int64) string {
	if bytes <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f MiB", measure.MiB(bytes))
}
