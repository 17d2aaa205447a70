package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// limitFigures are the medians over a variant's runs that tell what limited
// its throughput.
type limitFigures struct {
	busy, rate, throttled           float64
	cores                           map[string]float64
	handOver, sidecar, binding      float64 // p50 of each stage
	pvsWall, boundWall, created     float64
	boundAtLastPV, tailRate, thrput float64
	settleWall                      float64
	kcmWrites, allWrites            float64
	events, eventsSent              float64
}

func limitFiguresOf(v *provisioning.VariantResult) limitFigures {
	med := func(f func(*provisioning.RunResult) float64) float64 { return v.Spread(f).Median }
	lf := limitFigures{
		busy:          med(func(x *provisioning.RunResult) float64 { return x.CPUProvisioning.MachineBusy }),
		rate:          med(func(x *provisioning.RunResult) float64 { return x.SidecarRate }),
		throttled:     med(func(x *provisioning.RunResult) float64 { return x.SidecarThrottled }),
		handOver:      med(func(x *provisioning.RunResult) float64 { return x.HandOver.P50 }),
		sidecar:       med(func(x *provisioning.RunResult) float64 { return x.SidecarPart.P50 }),
		binding:       med(func(x *provisioning.RunResult) float64 { return x.PVToBound.P50 }),
		pvsWall:       med(func(x *provisioning.RunResult) float64 { return measure.Seconds(x.PVsWall) }),
		boundWall:     med(func(x *provisioning.RunResult) float64 { return measure.Seconds(x.ProvisionWall) }),
		created:       med(func(x *provisioning.RunResult) float64 { return measure.Seconds(x.CreateCalls.Duration) }),
		boundAtLastPV: med(func(x *provisioning.RunResult) float64 { return x.BoundAtLastPV }),
		tailRate:      med(func(x *provisioning.RunResult) float64 { return x.TailBindRate }),
		thrput:        med(func(x *provisioning.RunResult) float64 { return x.Throughput() }),
		settleWall:    med(func(x *provisioning.RunResult) float64 { return measure.Seconds(x.SettleWall) }),
		kcmWrites: med(func(x *provisioning.RunResult) float64 {
			return x.PerVolume(x.Provisioning.Clients[measure.ClientKCM].Writes)
		}),
		allWrites: med(func(x *provisioning.RunResult) float64 {
			n := 0
			for _, c := range x.Provisioning.Clients {
				n += c.Writes
			}
			return x.PerVolume(n)
		}),
		events:     med(func(x *provisioning.RunResult) float64 { return float64(x.Provisioning.EventsRecorded) }),
		eventsSent: med(func(x *provisioning.RunResult) float64 { return float64(x.Provisioning.Sidecar["create events"]) }),
		cores:      map[string]float64{},
	}
	names := map[string]bool{}
	for _, run := range v.Runs {
		for n := range run.CPUProvisioning.Cores {
			names[n] = true
		}
	}
	for n := range names {
		lf.cores[n] = med(func(x *provisioning.RunResult) float64 {
			if c, ok := x.CPUProvisioning.Cores[n]; ok {
				return c
			}
			return math.NaN()
		})
	}
	return lf
}

// coresLine lists the components by CPU use, largest first.
func (lf limitFigures) coresLine() string {
	names := make([]string, 0, len(lf.cores))
	for n := range lf.cores {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return lf.cores[names[i]] > lf.cores[names[j]] })
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %.2f", n, lf.cores[n]))
	}
	return strings.Join(parts, ", ")
}

// writeLimits says what limited throughput, from the figures: the
// machine's CPU, kube-controller-manager's PV binder, the sidecar's client
// rate limit, or the benchmark's own client.
func (r scenario) writeLimits(b *strings.Builder) {
	b.WriteString("## What limited throughput\n\n")
	cores := r.Environment.Cores
	limit := provisioning.SidecarLimit(r.Options.SidecarArgs)
	figs := make([]limitFigures, len(r.Variants))
	for i, v := range r.Variants {
		lf := limitFiguresOf(v)
		figs[i] = lf
		fmt.Fprintf(b, "- **%s** (medians, provisioning phase): the machine's %d cores were %s busy; CPU in cores: %s. "+
			"Claims waited p50 %.2f s to be handed to the sidecar, %.2f s for the sidecar, %.2f s to be Bound. "+
			"The benchmark's creates took %.2f s; the last PV existed after %.2f s, when %s of the claims were Bound; the rest were Bound at %.0f claims/s, the last after %.2f s. "+
			"The sidecar sent %.0f requests/s; %s of its main client's were sent at its rate limit. "+
			"kube-controller-manager wrote %.2f times per volume; all clients together %.2f.\n",
			v.Variant.Name, cores, bench.Pct(lf.busy), lf.coresLine(),
			lf.handOver, lf.sidecar, lf.binding,
			lf.created, lf.pvsWall, bench.Pct(lf.boundAtLastPV), lf.tailRate, lf.boundWall,
			lf.rate, bench.Pct(lf.throttled), lf.kcmWrites, lf.allWrites)
	}
	b.WriteString("\nSo:\n\n")
	all := func(ok func(limitFigures) bool) bool {
		for _, lf := range figs {
			if !ok(lf) {
				return false
			}
		}
		return len(figs) > 0
	}
	if all(func(lf limitFigures) bool { return lf.boundAtLastPV < 0.5 && lf.binding+lf.handOver > lf.sidecar }) {
		b.WriteString("- **kube-controller-manager's PV binder set the pace.** Claims spent longer waiting for it, before the sidecar could start and after the PV existed, than in the sidecar, and when the sidecar had made the last PV most claims were not Bound yet. " +
			"The binder's claim worker is a single goroutine (the PV controller runs one claim worker and one volume worker): it sees every change of every claim, schedules the hand-over to the sidecar, and binds each claim with writes made one after another (PV status, claim, claim status), so it moves at the API server's latency per write. " +
			"Its client limit (`" + strings.Join(r.Options.KCMArgs, " ") + "`) is far above what it used.\n")
	}
	if all(func(lf limitFigures) bool { return lf.busy >= 0.75 }) {
		fmt.Fprintf(b, "- **The machine's CPU is what makes those writes slow:** its %d cores were mostly busy in every configuration, kube-apiserver (which also writes each request to the audit log before answering) taking the largest share. Every request any client adds lengthens every other client's wait, the binder's included.\n", cores)
	}
	for i, v := range r.Variants {
		b.WriteString(sidecarLimitLine(v.Variant.Name, figs[i], limit))
	}
	b.WriteString("- The benchmark's own client was not a limit: it created every claim in the first seconds, long before the last was Bound.\n")
	if a, c := r.Pair(); a != nil {
		la, lc := limitFiguresOf(a), limitFiguresOf(c)
		fmt.Fprintf(b, "- **What %s costs here**, %.1f instead of %.1f claims/s: %.2f more writes per volume on top of the %.2f all clients make with %s (%s more work for the API server, which the binder's writes wait behind); the finalizer write before `CreateVolume` on every claim's path (the sidecar's stage took p50 %.2f s instead of %.2f s); and the finalizer removals, which go on after the last PV (until %.2f s instead of %.2f s) and are each a claim change that the binder's claim worker syncs too: after the last PV it bound %.0f instead of %.0f claims/s.\n",
			a.Variant.Name, la.thrput, lc.thrput,
			la.allWrites-lc.allWrites, lc.allWrites, c.Variant.Name, bench.Pct((la.allWrites-lc.allWrites)/lc.allWrites),
			la.sidecar, lc.sidecar, la.settleWall, lc.settleWall, la.tailRate, lc.tailRate)
	}
	b.WriteString("\n")
}

// sidecarLimitLine says whether the sidecar's own client rate limit held it
// back, and what that cost.
func sidecarLimitLine(name string, lf limitFigures, limit provisioning.RateLimit) string {
	flags := fmt.Sprintf("`--kube-api-qps=%.0f --kube-api-burst=%.0f`", limit.QPS, limit.Burst)
	if lf.throttled < 0.1 {
		return fmt.Sprintf("- With %s the sidecar's client rate limit (%s) paced %s of its main client's requests: not a limit.\n", name, flags, bench.Pct(lf.throttled))
	}
	return fmt.Sprintf("- **The sidecar's client rate limit** (%s) paced %s of its main client's requests with %s: once its burst is spent, each request waits its turn in client-go.\n", flags, bench.Pct(lf.throttled), name)
}
