package report

import (
	"fmt"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// writeRuns is one line per run, in the order they ran.
func (r scenario) writeRuns(b *strings.Builder) {
	b.WriteString("## Runs\n\n")
	t := &bench.Table{
		Header: []string{"#", "configuration", "run", "stack start", "Bound", "all Bound", "claims/s", "p50", "p99", "PVs gone", "driver empty", "sidecar req/vol prov.", "sidecar req/vol del.", "non-2xx", "other CPU prov. / del.", "problems"},
		Right:  []bool{true, false, true, true, true, true, true, true, true, true, true, true, true, true, true, false},
	}
	var runs []*provisioning.RunResult
	for _, v := range r.Variants {
		runs = append(runs, v.Runs...)
	}
	for order := 1; order <= len(runs); order++ {
		for _, run := range runs {
			if run.Order != order {
				continue
			}
			provAll, _ := run.Provisioning.SidecarTotals()
			delAll, _ := run.Deletion.SidecarTotals()
			delPerVolume := fmt.Sprintf("%.2f", run.PerVolume(delAll))
			if run.DeletionSkipped {
				delPerVolume = "–"
			}
			t.Add(fmt.Sprint(run.Order), run.Variant, fmt.Sprint(run.Run),
				bench.FmtSeconds(run.StackStart), fmt.Sprintf("%d/%d", run.Bound, run.Claims),
				bench.FmtSeconds(run.ProvisionWall), fmt.Sprintf("%.1f", run.Throughput()),
				fmt.Sprintf("%.2f s", run.Latency.P50), fmt.Sprintf("%.2f s", run.Latency.P99),
				bench.FmtSeconds(run.PVsGoneWall), bench.FmtSeconds(run.DriverEmptyWall),
				fmt.Sprintf("%.2f", run.PerVolume(provAll)), delPerVolume,
				fmt.Sprint(run.SidecarErrors()),
				fmt.Sprintf("%.2f / %.2f", run.CPUProvisioning.OtherCores, run.CPUDeletion.OtherCores),
				strings.Join(run.Problems, "; "))
		}
	}
	t.Write(b)
}

// writeSetup gives the components' command lines as they ran ($WORK is the
// run's work folder), and how the figures were taken.
func (r scenario) writeSetup(b *strings.Builder) {
	b.WriteString("## Setup\n\n")
	for i, v := range r.Variants {
		if i == 0 {
			fmt.Fprintf(b, "Command lines of the first run (%s), read from /proc; `$WORK` is the run's work folder:\n\n```\n", v.Variant.Name)
			for _, c := range v.Commands {
				fmt.Fprintf(b, "%s\n", c.Line)
			}
			b.WriteString("```\n\n")
			continue
		}
		for _, c := range v.Commands {
			if c.Component == measure.ClientSidecar {
				fmt.Fprintf(b, "The sidecar of %s:\n\n```\n%s\n```\n\n", v.Variant.Name, c.Line)
			}
		}
	}
	b.WriteString(methodNotes)
}

// methodNotes say how each figure is taken.
const methodNotes = `How the figures are taken:

- Times of claims and PVs come from the benchmark's watches (informers) of claims and PVs, the moment an event arrives; the driver's "no volume left" is the modification time of its state file, which it rewrites (with fsync) on every change.
- Requests come from the kube-apiserver audit log, one per request (a watch's final event), grouped by requester: the sidecar is its ServiceAccount; kube-controller-manager and the benchmark both use the admin identity and are told apart by user agent. A request belongs to the phase in which the API server received it: provisioning from the first Create to the first Delete, deletion from the first Delete to 2 s after the last PV and volume were gone.
- Writes are create, update, patch and delete; reads are get, list and watch. Per volume means divided by the claims of the run; the warm-up claim is outside both phases.
- Events recorded come from the sidecar's log (client-go logs each event it records); CSI calls from the mock driver's log.
- "At its client rate limit": client-go's token bucket (the sidecar's --kube-api-qps and --kube-api-burst) replayed over the times the API server received the requests of the sidecar's main client, starting full; a request that found fewer than 8 tokens (40 ms of refill) was paced by the limit. Upstream sends every request but leader election's on that client; ours sends events and claim updates (the protection finalizers) on clients of their own.
- Hand-over is the first time the watch shows the claim with kube-controller-manager's volume.kubernetes.io/storage-provisioner annotation.
- CPU is user plus system time from /proc/<pid>/stat over the provisioning phase, in cores (CPU seconds per second); machine busy is from /proc/stat; "outside the stack" is the machine's busy time less that of the stack's processes and the benchmark's own.
`
