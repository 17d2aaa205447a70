package capacity

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// capacityQueue is the name of the CSIStorageCapacity workqueue, in
// upstream's sidecar and in ours (which keeps upstream's name so that
// dashboards carry over): the name label of workqueue_depth.
const capacityQueue = "csistoragecapacity"

// sidecar is one csi-provisioner process of a run.
type sidecar struct {
	p          *framework.Process
	metricsURL string
	started    time.Time
}

// startSidecar starts a sidecar of the run's variant with capacity
// tracking at the run's poll interval, budget's flags added (none for the
// defaults), its metrics on a port of its own, and a Pod of a StatefulSet
// for the owner of the objects (the default --capacity-ownerref-level=1).
func (r *runner) startSidecar(ctx context.Context, budget ...string) (*sidecar, error) {
	port, err := framework.FreePort()
	if err != nil {
		return nil, err
	}
	args := slices.Concat(r.opts.SidecarArgs, r.variant.Args,
		[]string{"--enable-capacity", "--capacity-poll-interval=" + r.opts.PollInterval.String()},
		budget,
		[]string{fmt.Sprintf("--http-endpoint=127.0.0.1:%d", port)})
	started := time.Now()
	p, err := r.stack.StartSidecar(ctx, framework.SidecarOptions{
		Binary:             r.variant.Binary,
		Verbosity:          r.opts.SidecarVerbosity,
		ExtraArgs:          args,
		Env:                r.variant.Env,
		ExtraRBACManifests: []string{framework.CapacityRBACManifest},
		Workload:           framework.WorkloadStatefulSet,
	})
	if err != nil {
		return nil, fmt.Errorf("start the sidecar: %w", err)
	}
	return &sidecar{p: p, metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), started: started}, nil
}

// fastBudget are the flags of the convergence and churn phases.
func (r *runner) fastBudget() []string {
	return []string{
		"--kube-api-capacity-qps=" + strconv.FormatFloat(r.opts.FastQPS, 'g', -1, 64),
		"--kube-api-capacity-burst=" + strconv.Itoa(r.opts.FastBurst),
	}
}

// stopSidecar records the process's peak RSS under phase and stops it.
func (r *runner) stopSidecar(sc *sidecar, phase string) {
	if mem, err := measure.ReadProcMemory(sc.p.Pid()); err != nil {
		r.problem("%s sidecar's memory: %v", phase, err)
	} else {
		r.res.PeakRSS[phase] = mem.PeakRSS
	}
	if err := sc.p.Stop(); err != nil {
		r.problem("%s sidecar did not stop: %v", phase, err)
	}
}

// pendingWritesMetric is ours: the updates a sync found and a writer has
// not made yet, which wait outside the workqueue since checks and writes
// were split. Upstream has no such metric: its updates wait in the queue.
const pendingWritesMetric = "csi_provisioner_capacity_pending_writes"

// backlog reads the capacity queue's depth and, where the sidecar has the
// metric, its pending writes from its metrics; -1 for what cannot be read
// (the endpoint not up yet, a metric it lacks).
func (sc *sidecar) backlog(ctx context.Context, timeout time.Duration) (depth, pending int) {
	m, err := measure.Scrape(ctx, sc.metricsURL, timeout)
	if err != nil {
		return -1, -1
	}
	depth, pending = -1, -1
	if _, ok := m["workqueue_depth"]; ok {
		if d, err := m.Sum("workqueue_depth", map[string]string{"name": capacityQueue}); err == nil {
			depth = int(d)
		}
	}
	if v, err := m.Value(pendingWritesMetric); err == nil {
		pending = int(v)
	}
	return depth, pending
}
