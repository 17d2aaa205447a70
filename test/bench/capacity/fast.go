package capacity

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// convergenceCheck is how often a phase looks whether the objects
// converged; the time it reports comes from the watch's last event, not
// from this.
const convergenceCheck = 100 * time.Millisecond

// fastPhases runs one sidecar at FastQPS: it creates every object on the
// still driver (convergence), then follows ChurnNodes nodes leaving and as
// many joining at once (churn).
func (r *runner) fastPhases(ctx context.Context) error {
	still := newDriverModel(r.opts.Classes, mockdriver.Moving{})
	sc, err := r.startSidecar(ctx, r.fastBudget()...)
	if err != nil {
		return err
	}
	defer r.stopSidecar(sc, "fast")

	wanted := wantedKeys(r.opts.Classes, r.nodes)
	r.res.Convergence.Writes = len(wanted)
	r.windows.convergence.From = sc.started
	took, err := r.waitConverged(ctx, sc.started, still, wanted, "every object to be created")
	r.res.Convergence.Took = took
	r.windows.convergence.To = time.Now()
	if err != nil {
		return err
	}
	r.opts.Progressf("  %s objects converged in %s at %g QPS", bench.Thousands(len(wanted)), took.Round(time.Millisecond), r.opts.FastQPS)
	if r.opts.ChurnNodes == 0 {
		return nil
	}
	time.Sleep(bench.Drain)
	return r.churn(ctx)
}

// churn makes ChurnNodes nodes leave and as many new ones join at once, and
// times the objects following them.
func (r *runner) churn(ctx context.Context) error {
	leave, join, after := churnNodes(r.nodes, r.opts.ChurnNodes, r.opts.Nodes)
	r.nodes = after
	r.res.Churn.Writes = (len(leave) + len(join)) * len(r.opts.Classes)
	start := time.Now()
	r.windows.churn.From = start
	if err := r.changeNodes(ctx, leave, join); err != nil {
		return err
	}
	r.res.Churn.ChangesMade = time.Since(start)
	still := newDriverModel(r.opts.Classes, mockdriver.Moving{})
	took, err := r.waitConverged(ctx, start, still, wantedKeys(r.opts.Classes, r.nodes), "the objects to follow the nodes")
	r.res.Churn.Took = took
	r.windows.churn.To = time.Now()
	if err != nil {
		return err
	}
	r.opts.Progressf("  %d nodes left and %d joined: objects followed in %s", len(leave), len(join), took.Round(time.Millisecond))
	return nil
}

// churnNodes picks the last n of nodes to leave and n new ones to join,
// named after the first total nodes, and the nodes registered after.
func churnNodes(nodes []string, n, total int) (leave, join, after []string) {
	kept := len(nodes) - n
	leave = slices.Clone(nodes[kept:])
	for i := range n {
		join = append(join, fmt.Sprintf("node-%d", total+i+1))
	}
	return leave, join, append(slices.Clone(nodes[:kept]), join...)
}

// waitConverged waits until the published objects are exactly wanted with
// the driver's answers, and returns the time from start until the watch
// delivered the last change.
func (r *runner) waitConverged(ctx context.Context, start time.Time, model driverModel, wanted []framework.CapacityKey, what string) (time.Duration, error) {
	var took time.Duration
	err := r.stack.WaitEvery(ctx, convergenceCheck, r.opts.PhaseTimeout, what, func(context.Context) (bool, error) {
		p := r.watch.snapshot()
		missing, wrong, extra := model.mismatch(time.Now(), wanted, p)
		if missing+wrong+extra > 0 {
			return false, fmt.Errorf("%d objects missing, %d with another capacity, %d unwanted", missing, wrong, extra)
		}
		took = max(p.lastEvent.Sub(start), 0)
		return true, nil
	})
	return took, err
}
