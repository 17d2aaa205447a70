package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// scenario is one provisioning scenario, as its report
// (provisioning-<size>-<limits>.md) shows it.
type scenario struct{ *provisioning.Report }

// Provisioning writes the report of one provisioning scenario.
func Provisioning(r *provisioning.Report) string { return scenario{r}.markdown() }

func (r scenario) markdown() string {
	var b strings.Builder
	r.writeHeader(&b)
	r.writeSummary(&b)
	r.writeRequests(&b, "provisioning", provisioning.Provisioning.Get)
	if r.Deletes() {
		r.writeRequests(&b, "deletion", provisioning.Deletion.Get)
	}
	r.writeExtraWrites(&b)
	r.writeErrors(&b)
	r.writeLimits(&b)
	r.writeRuns(&b)
	r.writeSetup(&b)
	return b.String()
}

func (r scenario) writeHeader(b *strings.Builder) {
	o := r.Options
	e := r.Environment
	title := "Provisioning protection benchmark"
	if r.Title != "" {
		title += ": " + r.Title
	}
	fmt.Fprintf(b, "# %s\n\n", title)
	b.WriteString(bench.RanLine(r.Invocation, o.Quick, r.Started, r.Duration))
	e.WriteProvenance(b)
	fmt.Fprintf(b, "- Workload per run: %s claims (%s, ReadWriteOnce, StorageClass `%s`: Immediate binding, reclaim policy Delete) created by %d concurrent calls of a client limited to %.0f QPS / %d burst; %s\n",
		bench.Thousands(o.Claims), bench.ClaimSize, bench.ClassName, o.Creator.Workers, o.Creator.QPS, o.Creator.Burst, r.deletionWorkload())
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
		b.WriteString(v.Variant.Describe())
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
func (r scenario) rbacLine() string {
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

func (r scenario) deletionWorkload() string {
	if r.Deletes() {
		return "once all are Bound and free of the provisioning-protection finalizer, all deleted the same way"
	}
	return "the run ends once all are Bound and free of the provisioning-protection finalizer (deletion is measured in the runs of other sizes)"
}

// busyMachine is the CPU, in cores, that other processes may use during a
// measured phase before the report warns that they disturbed it.
const busyMachine = 0.15

// maxOtherCPU is the most CPU that processes outside the stack used in any
// measured phase of any run.
func (r scenario) maxOtherCPU() float64 {
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
	value func(*provisioning.RunResult) float64
	// ratio gives the row the first variant's median over the second's;
	// left out where a ratio means nothing (counts, shares).
	ratio bool
}

func (r scenario) writeSummary(b *strings.Builder) {
	b.WriteString("## Results\n\n")
	a, c := r.Pair()
	if a != nil {
		paired := r.PairedRatios(provisioning.FigThroughput)
		fmt.Fprintf(b, "**Throughput %s / %s: %.2f** (ratio of the medians; run by run %s).\n\n", a.Variant.Name, c.Variant.Name, r.ThroughputRatio(), bench.FmtSpread(paired, 2, ""))
		b.WriteString(r.extraWritesHeadline())
	}
	b.WriteString(r.baselineHeadline())
	base := r.Baseline()
	ours := r.Ours()

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
	t := &bench.Table{Header: header, Right: bench.RightFrom(1, len(header))}
	section := func(name string) {
		row := []string{"**" + name + "**"}
		for range header[1:] {
			row = append(row, "")
		}
		t.Add(row...)
	}
	add := func(f figure) {
		row := []string{f.name}
		spreads := map[*provisioning.VariantResult]measure.Spread{}
		for _, v := range r.Variants {
			s := v.Spread(f.value)
			spreads[v] = s
			row = append(row, bench.FmtSpread(s, f.prec, f.unit))
		}
		cell := func(x, y *provisioning.VariantResult) string {
			q := math.NaN()
			if f.ratio {
				q = measure.Ratio(spreads[x], spreads[y])
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
		t.Add(row...)
	}
	dur := func(get func(*provisioning.RunResult) time.Duration) func(*provisioning.RunResult) float64 {
		return func(x *provisioning.RunResult) float64 { return measure.Seconds(get(x)) }
	}
	prov := provisioning.Provisioning.Get

	section("provisioning")
	add(figure{name: "claims Bound", value: func(x *provisioning.RunResult) float64 { return float64(x.Bound) }})
	add(figure{name: "creating the claims (benchmark's calls)", prec: 2, unit: " s", value: dur(func(x *provisioning.RunResult) time.Duration { return x.CreateCalls.Duration })})
	add(figure{name: "first create → last PV exists", prec: 2, unit: " s", ratio: true, value: dur(func(x *provisioning.RunResult) time.Duration { return x.PVsWall })})
	add(figure{name: "**first create → all Bound (wall time)**", prec: 2, unit: " s", ratio: true, value: dur(func(x *provisioning.RunResult) time.Duration { return x.ProvisionWall })})
	add(figure{name: "**throughput (claims Bound / s)**", prec: 1, ratio: true, value: func(x *provisioning.RunResult) float64 { return x.Throughput() }})
	add(figure{name: "first create → no claim has the provisioning-protection finalizer", prec: 2, unit: " s", ratio: true, value: dur(func(x *provisioning.RunResult) time.Duration { return x.SettleWall })})
	add(figure{name: "**latency p50** (claim created → Bound)", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.Latency.P50 }})
	add(figure{name: "**latency p99**", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.Latency.P99 }})
	add(figure{name: "… created → handed to the sidecar (binder's annotation), p50", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.HandOver.P50 }})
	add(figure{name: "… created → handed to the sidecar, p99", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.HandOver.P99 }})
	add(figure{name: "… handed over → PV exists (the sidecar), p50", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.SidecarPart.P50 }})
	add(figure{name: "… handed over → PV exists, p99", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.SidecarPart.P99 }})
	add(figure{name: "… PV exists → Bound (the binder), p50", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.PVToBound.P50 }})
	add(figure{name: "… PV exists → Bound, p99", prec: 2, unit: " s", ratio: true, value: func(x *provisioning.RunResult) float64 { return x.PVToBound.P99 }})
	add(figure{name: "claims Bound when the last PV appeared", prec: 0, unit: "%", value: func(x *provisioning.RunResult) float64 { return 100 * x.BoundAtLastPV }})
	add(figure{name: "claims Bound / s after the last PV appeared", prec: 1, ratio: true, value: func(x *provisioning.RunResult) float64 { return x.TailBindRate }})
	add(figure{name: "**sidecar requests per volume**", prec: 2, ratio: true, value: provisioning.SidecarPerVolume(prov, provisioning.AllRequests)})
	add(figure{name: "… writes (create, update, patch, delete)", prec: 2, ratio: true, value: provisioning.SidecarPerVolume(prov, provisioning.Writes)})
	add(figure{name: "… reads (get, list, watch)", prec: 2, value: provisioning.SidecarPerVolume(prov, provisioning.Reads)})
	add(figure{name: "CSI CreateVolume calls per volume", prec: 2, value: func(x *provisioning.RunResult) float64 {
		return x.PerVolume(x.Provisioning.DriverCalls["CreateVolume"])
	}})
	add(figure{name: "CPU of processes outside the benchmark's stack (cores)", prec: 2, value: func(x *provisioning.RunResult) float64 { return x.CPUProvisioning.OtherCores }})
	add(figure{name: "sidecar requests / s (mean)", prec: 0, ratio: true, value: func(x *provisioning.RunResult) float64 { return x.SidecarRate }})
	add(figure{name: "main client requests sent at its rate limit", prec: 0, unit: "%", value: func(x *provisioning.RunResult) float64 { return 100 * x.SidecarThrottled }})
	add(figure{name: "events recorded by the sidecar per volume (its log)", prec: 2, value: func(x *provisioning.RunResult) float64 { return x.PerVolume(x.Provisioning.EventsRecorded) }})
	add(figure{name: "… of which reached the API (create events)", prec: 2, ratio: true, value: func(x *provisioning.RunResult) float64 { return x.PerVolume(x.Provisioning.Sidecar["create events"]) }})
	if r.Deletes() {
		r.addDeletionRows(section, add)
	}
	section("errors")
	add(figure{name: "sidecar non-2xx answers, provisioning", value: func(x *provisioning.RunResult) float64 { return float64(sum(x.Provisioning.SidecarErrors)) }})
	if r.Deletes() {
		add(figure{name: "sidecar non-2xx answers, deletion", value: func(x *provisioning.RunResult) float64 { return float64(sum(x.Deletion.SidecarErrors)) }})
	}
	add(figure{name: "claims not Bound", value: func(x *provisioning.RunResult) float64 { return float64(x.Claims - x.Bound) }})
	if r.Deletes() {
		add(figure{name: "PVs / driver volumes left after deletion", value: func(x *provisioning.RunResult) float64 { return float64(x.PVsLeft + x.DriverVolumesLeft) }})
	}
	add(figure{name: "benchmark calls failed", value: func(x *provisioning.RunResult) float64 { return float64(x.CreateCalls.Failed + x.DeleteCalls.Failed) }})
	t.Write(b)
	b.WriteString(latencyNote)
}

// latencyNote says what the latency rows measure.
const latencyNote = "Latency is per claim, from the moment its Create call returned to the moment the benchmark's watch saw it Bound (the API's creationTimestamp has one-second resolution, too coarse here); all claims are created in a burst, so it is mostly time spent queued. The rows under it split it into its three stages, each seen in the watch: kube-controller-manager's PV binder hands the claim to the sidecar (the `volume.kubernetes.io/storage-provisioner` annotation; the sidecar ignores a claim without it), the sidecar provisions it (with the gate on: finalizer update, then `CreateVolume`, then the PV), and the binder binds claim and PV. A wall time is from the first Create (Delete) call to the last claim's event.\n\n"

func (r scenario) addDeletionRows(section func(string), add func(figure)) {
	dur := func(get func(*provisioning.RunResult) time.Duration) func(*provisioning.RunResult) float64 {
		return func(x *provisioning.RunResult) float64 { return measure.Seconds(get(x)) }
	}
	del := provisioning.Deletion.Get
	section("deletion")
	add(figure{name: "deleting the claims (benchmark's calls)", prec: 2, unit: " s", value: dur(func(x *provisioning.RunResult) time.Duration { return x.DeleteCalls.Duration })})
	add(figure{name: "first delete → all claims gone", prec: 2, unit: " s", ratio: true, value: dur(func(x *provisioning.RunResult) time.Duration { return x.ClaimsGoneWall })})
	add(figure{name: "**first delete → all PVs gone**", prec: 2, unit: " s", ratio: true, value: dur(func(x *provisioning.RunResult) time.Duration { return x.PVsGoneWall })})
	add(figure{name: "**first delete → driver holds no volume**", prec: 2, unit: " s", ratio: true, value: dur(func(x *provisioning.RunResult) time.Duration { return x.DriverEmptyWall })})
	add(figure{name: "deletion throughput (PVs gone / s)", prec: 1, ratio: true, value: func(x *provisioning.RunResult) float64 { return x.DeleteThroughput() }})
	add(figure{name: "CSI DeleteVolume calls per volume", prec: 2, value: func(x *provisioning.RunResult) float64 {
		return x.PerVolume(x.Provisioning.DriverCalls["DeleteVolume"] + x.Deletion.DriverCalls["DeleteVolume"])
	}})
	add(figure{name: "CPU of processes outside the benchmark's stack (cores)", prec: 2, value: func(x *provisioning.RunResult) float64 { return x.CPUDeletion.OtherCores }})
	add(figure{name: "**sidecar requests per volume**", prec: 2, ratio: true, value: provisioning.SidecarPerVolume(del, provisioning.AllRequests)})
	add(figure{name: "… writes", prec: 2, ratio: true, value: provisioning.SidecarPerVolume(del, provisioning.Writes)})
	add(figure{name: "… reads", prec: 2, value: provisioning.SidecarPerVolume(del, provisioning.Reads)})
}

// finalizerWrites is the request provisioning protection adds.
const finalizerWrites = "update persistentvolumeclaims"

// extraWritesHeadline says how many more writes per volume the first
// variant makes, and how many of them are the finalizer writes.
func (r scenario) extraWritesHeadline() string {
	a, c := r.Pair()
	var parts []string
	for _, ph := range r.MeasuredPhases() {
		writes := func(v *provisioning.VariantResult) float64 {
			return v.Spread(func(x *provisioning.RunResult) float64 { _, w := ph.Get(x).SidecarTotals(); return x.PerVolume(w) }).Median
		}
		patches := func(v *provisioning.VariantResult) float64 {
			return measure.ZeroIfNaN(v.RequestsPerVolume(ph.Get, finalizerWrites).Median)
		}
		wa, wc := writes(a), writes(c)
		parts = append(parts, fmt.Sprintf("**%s while %s** (%.2f vs %.2f), of which `%s` %s",
			bench.FmtDiff(wa-wc, 2), ph.Doing, wa, wc, finalizerWrites, bench.FmtDiff(patches(a)-patches(c), 2)))
	}
	return fmt.Sprintf("**Extra sidecar writes per volume with %s:** %s. The rest of a difference is not a write of the gate: see [Extra writes](#extra-writes).\n\n",
		a.Variant.Name, strings.Join(parts, "; "))
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
