package bench

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// HasProblems tells whether any run failed to measure something: a phase
// that timed out, a claim not Bound, a volume left, a component that died.
// The sidecar's non-2xx answers are reported but are not problems of the
// run by themselves.
func (r *Report) HasProblems() bool {
	for _, v := range r.Variants {
		for _, run := range v.Runs {
			if len(run.Problems) > 0 || run.Bound < run.Claims || run.PVsLeft > 0 || run.DriverVolumesLeft > 0 {
				return true
			}
		}
	}
	return false
}

// Markdown writes the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	r.writeHeader(&b)
	r.writeSummary(&b)
	r.writeRequests(&b, "provisioning", func(x *RunResult) PhaseRequests { return x.Provisioning })
	if r.deletes() {
		r.writeRequests(&b, "deletion", func(x *RunResult) PhaseRequests { return x.Deletion })
	}
	r.writeExtraWrites(&b)
	r.writeErrors(&b)
	r.writeLimits(&b)
	r.writeRuns(&b)
	r.writeSetup(&b)
	return b.String()
}

// deletes tells whether the runs measured deletion too.
func (r *Report) deletes() bool { return !r.Options.SkipDeletion }

// measuredPhases are the phases the runs measured.
func (r *Report) measuredPhases() []measuredPhase {
	if r.deletes() {
		return phases
	}
	return phases[:1]
}

// pair returns the two variants of ours compared (the first against the
// second, gate on against gate off), or nil when there are not two. The
// baseline is not one of them: it is compared with each (BaselineRatios).
func (r *Report) pair() (a, b *VariantResult) {
	ours := r.ours()
	if len(ours) != 2 {
		return nil, nil
	}
	return ours[0], ours[1]
}

func (r *Report) writeHeader(b *strings.Builder) {
	o := r.Options
	e := r.Environment
	title := "Provisioning protection benchmark"
	if r.Title != "" {
		title += ": " + r.Title
	}
	fmt.Fprintf(b, "# %s\n\n", title)
	b.WriteString(ranLine(r.Invocation, o.Quick, r.Started, r.Duration))
	e.writeProvenance(b)
	fmt.Fprintf(b, "- Workload per run: %s claims (%s, ReadWriteOnce, StorageClass `%s`: Immediate binding, reclaim policy Delete) created by %d concurrent calls of a client limited to %.0f QPS / %d burst; %s\n",
		thousands(o.Claims), claimSize, className, o.Creator.Workers, o.Creator.QPS, o.Creator.Burst, r.deletionWorkload())
	fmt.Fprintf(b, "- Runs: %d per configuration, interleaved (", o.Runs)
	for i, v := range r.Variants {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.Variant.Name)
	}
	fmt.Fprintf(b, ", ...); every run on a fresh control plane, driver and sidecar, after one warm-up claim provisioned and deleted; figures are the median of the runs, (min–max) when they differ\n")
	sidecarArgs := "its default client limits (5 QPS, 10 burst) and workers (100)"
	if len(o.SidecarArgs) > 0 {
		sidecarArgs = "`" + strings.Join(o.SidecarArgs, " ") + "`"
	}
	fmt.Fprintf(b, "- Sidecar: %s plus, per configuration, ", sidecarArgs)
	for i, v := range r.Variants {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.Variant.describe())
	}
	fmt.Fprintf(b, "; `-v=%d`; %s, so its requests are the only ones of its ServiceAccount\n", o.SidecarVerbosity, r.rbacLine())
	fmt.Fprintf(b, "- kube-controller-manager: PV binder, PV protection and PVC protection controllers, `%s`\n", strings.Join(o.KCMArgs, " "))
	fmt.Fprintf(b, "- kube-apiserver: audit log of every request at Metadata level, written synchronously (`--audit-log-mode=blocking`); the request counts below come from it\n")
	fmt.Fprintf(b, "- Full command lines: [Setup](#setup)\n\n")
	if other := r.maxOtherCPU(); other >= busyMachine {
		fmt.Fprintf(b, "**The machine was not quiet:** processes outside the benchmark's stack used up to %.2f of its %d cores during a measured phase (see the runs), so the components had less CPU than the machine has and the figures are slower and noisier than on a quiet machine.\n\n", other, e.Cores)
	}
}

// rbacLine says which RBAC each variant's sidecar ran under.
func (r *Report) rbacLine() string {
	var other []string
	for _, v := range r.Variants {
		if v.Variant.RBACManifest != "" {
			other = append(other, fmt.Sprintf("%s under `%s`", v.Variant.Name, v.Variant.RBACManifest))
		}
	}
	if len(other) == 0 {
		return "under the shipped RBAC (`" + framework.RBACManifest + "`)"
	}
	return "under the shipped RBAC (`" + framework.RBACManifest + "`) but " + strings.Join(other, ", ")
}

func (r *Report) deletionWorkload() string {
	if r.deletes() {
		return "once all are Bound and free of the provisioning-protection finalizer, all deleted the same way"
	}
	return "the run ends once all are Bound and free of the provisioning-protection finalizer (deletion is measured in the runs of other sizes)"
}

// busyMachine is the CPU, in cores, that other processes may use during a
// measured phase before the report warns that they disturbed it.
const busyMachine = 0.15

// maxOtherCPU is the most CPU that processes outside the stack used in any
// measured phase of any run.
func (r *Report) maxOtherCPU() float64 {
	m := 0.0
	for _, v := range r.Variants {
		for _, run := range v.Runs {
			m = max(m, run.CPUProvisioning.OtherCores, run.CPUDeletion.OtherCores)
		}
	}
	return m
}

// figure is one row of the summary: how to read it from a run.
type figure struct {
	name  string
	prec  int
	unit  string
	value func(*RunResult) float64
	// ratio gives the row the first variant's median over the second's;
	// left out where a ratio means nothing (counts, shares).
	ratio bool
}

func (r *Report) writeSummary(b *strings.Builder) {
	b.WriteString("## Results\n\n")
	a, c := r.pair()
	if a != nil {
		paired := r.pairedRatios(func(x *RunResult) float64 { return x.Throughput() })
		fmt.Fprintf(b, "**Throughput %s / %s: %.2f** (ratio of the medians; run by run %s).\n\n", a.Variant.Name, c.Variant.Name, r.throughputRatio(), fmtSpread(paired, 2, ""))
		b.WriteString(r.extraWritesHeadline())
	}
	b.WriteString(r.baselineHeadline())
	base := r.baseline()
	ours := r.ours()

	header := []string{"figure"}
	for _, v := range r.Variants {
		header = append(header, v.Variant.Name)
	}
	if a != nil {
		header = append(header, a.Variant.Name+" / "+c.Variant.Name)
	}
	if base != nil {
		for _, v := range ours {
			header = append(header, v.Variant.Name+" / "+base.Variant.Name)
		}
	}
	t := &table{header: header, right: rightFrom(1, len(header))}
	section := func(name string) {
		row := []string{"**" + name + "**"}
		for range header[1:] {
			row = append(row, "")
		}
		t.add(row...)
	}
	add := func(f figure) {
		row := []string{f.name}
		spreads := map[*VariantResult]Spread{}
		for _, v := range r.Variants {
			s := v.spread(f.value)
			spreads[v] = s
			row = append(row, fmtSpread(s, f.prec, f.unit))
		}
		cell := func(x, y *VariantResult) string {
			q := math.NaN()
			if f.ratio {
				q = ratio(spreads[x], spreads[y])
			}
			if math.IsNaN(q) {
				return ""
			}
			return fmt.Sprintf("%.2f", q)
		}
		if a != nil {
			row = append(row, cell(a, c))
		}
		if base != nil {
			for _, v := range ours {
				row = append(row, cell(v, base))
			}
		}
		t.add(row...)
	}
	dur := func(get func(*RunResult) time.Duration) func(*RunResult) float64 {
		return func(x *RunResult) float64 { return seconds(get(x)) }
	}
	prov := func(x *RunResult) PhaseRequests { return x.Provisioning }

	section("provisioning")
	add(figure{name: "claims Bound", value: func(x *RunResult) float64 { return float64(x.Bound) }})
	add(figure{name: "creating the claims (benchmark's calls)", prec: 2, unit: " s", value: dur(func(x *RunResult) time.Duration { return x.CreateCalls.Duration })})
	add(figure{name: "first create → last PV exists", prec: 2, unit: " s", ratio: true, value: dur(func(x *RunResult) time.Duration { return x.PVsWall })})
	add(figure{name: "**first create → all Bound (wall time)**", prec: 2, unit: " s", ratio: true, value: dur(func(x *RunResult) time.Duration { return x.ProvisionWall })})
	add(figure{name: "**throughput (claims Bound / s)**", prec: 1, ratio: true, value: func(x *RunResult) float64 { return x.Throughput() }})
	add(figure{name: "first create → no claim has the provisioning-protection finalizer", prec: 2, unit: " s", ratio: true, value: dur(func(x *RunResult) time.Duration { return x.SettleWall })})
	add(figure{name: "**latency p50** (claim created → Bound)", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.Latency.P50 }})
	add(figure{name: "**latency p99**", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.Latency.P99 }})
	add(figure{name: "… created → handed to the sidecar (binder's annotation), p50", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.HandOver.P50 }})
	add(figure{name: "… created → handed to the sidecar, p99", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.HandOver.P99 }})
	add(figure{name: "… handed over → PV exists (the sidecar), p50", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.SidecarPart.P50 }})
	add(figure{name: "… handed over → PV exists, p99", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.SidecarPart.P99 }})
	add(figure{name: "… PV exists → Bound (the binder), p50", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.PVToBound.P50 }})
	add(figure{name: "… PV exists → Bound, p99", prec: 2, unit: " s", ratio: true, value: func(x *RunResult) float64 { return x.PVToBound.P99 }})
	add(figure{name: "claims Bound when the last PV appeared", prec: 0, unit: "%", value: func(x *RunResult) float64 { return 100 * x.BoundAtLastPV }})
	add(figure{name: "claims Bound / s after the last PV appeared", prec: 1, ratio: true, value: func(x *RunResult) float64 { return x.TailBindRate }})
	add(figure{name: "**sidecar requests per volume**", prec: 2, ratio: true, value: perVolume(prov, 0)})
	add(figure{name: "… writes (create, update, patch, delete)", prec: 2, ratio: true, value: perVolume(prov, 1)})
	add(figure{name: "… reads (get, list, watch)", prec: 2, value: perVolume(prov, 2)})
	add(figure{name: "CSI CreateVolume calls per volume", prec: 2, value: func(x *RunResult) float64 { return x.perVolume(x.Provisioning.DriverCalls["CreateVolume"]) }})
	add(figure{name: "CPU of processes outside the benchmark's stack (cores)", prec: 2, value: func(x *RunResult) float64 { return x.CPUProvisioning.OtherCores }})
	add(figure{name: "sidecar requests / s (mean)", prec: 0, ratio: true, value: func(x *RunResult) float64 { return x.SidecarRate }})
	add(figure{name: "sidecar requests sent at its client rate limit", prec: 0, unit: "%", value: func(x *RunResult) float64 { return 100 * x.SidecarThrottled }})
	add(figure{name: "events recorded by the sidecar per volume (its log)", prec: 2, value: func(x *RunResult) float64 { return x.perVolume(x.Provisioning.EventsRecorded) }})
	add(figure{name: "… of which reached the API (create events)", prec: 2, ratio: true, value: func(x *RunResult) float64 { return x.perVolume(x.Provisioning.Sidecar["create events"]) }})
	if r.deletes() {
		r.addDeletionRows(section, add)
	}
	section("errors")
	add(figure{name: "sidecar non-2xx answers, provisioning", value: func(x *RunResult) float64 { return float64(sum(x.Provisioning.SidecarErrors)) }})
	if r.deletes() {
		add(figure{name: "sidecar non-2xx answers, deletion", value: func(x *RunResult) float64 { return float64(sum(x.Deletion.SidecarErrors)) }})
	}
	add(figure{name: "claims not Bound", value: func(x *RunResult) float64 { return float64(x.Claims - x.Bound) }})
	if r.deletes() {
		add(figure{name: "PVs / driver volumes left after deletion", value: func(x *RunResult) float64 { return float64(x.PVsLeft + x.DriverVolumesLeft) }})
	}
	add(figure{name: "benchmark calls failed", value: func(x *RunResult) float64 { return float64(x.CreateCalls.Failed + x.DeleteCalls.Failed) }})
	t.write(b)
	b.WriteString(latencyNote)
}

// latencyNote says what the latency rows measure.
const latencyNote = "Latency is per claim, from the moment its Create call returned to the moment the benchmark's watch saw it Bound (the API's creationTimestamp has one-second resolution, too coarse here); all claims are created in a burst, so it is mostly time spent queued. The rows under it split it into its three stages, each seen in the watch: kube-controller-manager's PV binder hands the claim to the sidecar (the `volume.kubernetes.io/storage-provisioner` annotation; the sidecar ignores a claim without it), the sidecar provisions it (with the gate on: finalizer update, then `CreateVolume`, then the PV), and the binder binds claim and PV. A wall time is from the first Create (Delete) call to the last claim's event.\n\n"

func (r *Report) addDeletionRows(section func(string), add func(figure)) {
	dur := func(get func(*RunResult) time.Duration) func(*RunResult) float64 {
		return func(x *RunResult) float64 { return seconds(get(x)) }
	}
	del := func(x *RunResult) PhaseRequests { return x.Deletion }
	section("deletion")
	add(figure{name: "deleting the claims (benchmark's calls)", prec: 2, unit: " s", value: dur(func(x *RunResult) time.Duration { return x.DeleteCalls.Duration })})
	add(figure{name: "first delete → all claims gone", prec: 2, unit: " s", ratio: true, value: dur(func(x *RunResult) time.Duration { return x.ClaimsGoneWall })})
	add(figure{name: "**first delete → all PVs gone**", prec: 2, unit: " s", ratio: true, value: dur(func(x *RunResult) time.Duration { return x.PVsGoneWall })})
	add(figure{name: "**first delete → driver holds no volume**", prec: 2, unit: " s", ratio: true, value: dur(func(x *RunResult) time.Duration { return x.DriverEmptyWall })})
	add(figure{name: "deletion throughput (PVs gone / s)", prec: 1, ratio: true, value: func(x *RunResult) float64 { return x.DeleteThroughput() }})
	add(figure{name: "CSI DeleteVolume calls per volume", prec: 2, value: func(x *RunResult) float64 {
		return x.perVolume(x.Provisioning.DriverCalls["DeleteVolume"] + x.Deletion.DriverCalls["DeleteVolume"])
	}})
	add(figure{name: "CPU of processes outside the benchmark's stack (cores)", prec: 2, value: func(x *RunResult) float64 { return x.CPUDeletion.OtherCores }})
	add(figure{name: "**sidecar requests per volume**", prec: 2, ratio: true, value: perVolume(del, 0)})
	add(figure{name: "… writes", prec: 2, ratio: true, value: perVolume(del, 1)})
	add(figure{name: "… reads", prec: 2, value: perVolume(del, 2)})
}

// perVolume reads the sidecar's requests per volume of a phase: all of them
// (which 0), the writes (1) or the reads (2).
func perVolume(phase func(*RunResult) PhaseRequests, which int) func(*RunResult) float64 {
	return func(x *RunResult) float64 {
		all, writes := phase(x).SidecarTotals()
		return x.perVolume([]int{all, writes, all - writes}[which])
	}
}

// pairedRatios divides a figure of the first variant's run i by the second
// variant's run i, runs with the same index having run back to back.
func (r *Report) pairedRatios(f func(*RunResult) float64) Spread {
	a, c := r.pair()
	var q []float64
	for i := range min(len(a.Runs), len(c.Runs)) {
		x, y := f(a.Runs[i]), f(c.Runs[i])
		if y != 0 {
			q = append(q, x/y)
		}
	}
	return spreadOf(q)
}

// finalizerWrites is the request provisioning protection adds.
const finalizerWrites = "update persistentvolumeclaims"

// extraWritesHeadline says how many more writes per volume the first
// variant makes, and how many of them are the finalizer writes.
func (r *Report) extraWritesHeadline() string {
	a, c := r.pair()
	var parts []string
	for _, ph := range r.measuredPhases() {
		writes := func(v *VariantResult) float64 {
			return v.spread(func(x *RunResult) float64 { _, w := ph.get(x).SidecarTotals(); return x.perVolume(w) }).Median
		}
		patches := func(v *VariantResult) float64 { return zeroIfNaN(v.requestsPerVolume(ph.get, finalizerWrites).Median) }
		wa, wc := writes(a), writes(c)
		parts = append(parts, fmt.Sprintf("**%s while %s** (%.2f vs %.2f), of which `%s` %s",
			fmtDiff(wa-wc, 2), ph.doing, wa, wc, finalizerWrites, fmtDiff(patches(a)-patches(c), 2)))
	}
	return fmt.Sprintf("**Extra sidecar writes per volume with %s:** %s. The rest of a difference is not a write of the gate: see [Extra writes](#extra-writes).\n\n",
		a.Variant.Name, strings.Join(parts, "; "))
}

// measuredPhase is a phase of a run, for the tables that walk them.
type measuredPhase struct {
	name, doing string
	get         func(*RunResult) PhaseRequests
}

// phases are the two phases a run can measure.
var phases = []measuredPhase{
	{"provisioning", "provisioning", func(x *RunResult) PhaseRequests { return x.Provisioning }},
	{"deletion", "deleting", func(x *RunResult) PhaseRequests { return x.Deletion }},
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
