package capacity

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Run runs every variant Options.Runs times, interleaved, each run on a
// fresh stack.
func Run(ctx context.Context, opts Options, how bench.Invocation) (*Report, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	// Every variant runs under the shipped RBAC (Options.Variants): an
	// upstream manifest the baseline carries would only mislead the
	// report.
	opts.Variants = slices.Clone(opts.Variants)
	for i := range opts.Variants {
		opts.Variants[i].RBACManifest = ""
	}
	header, err := bench.Start(ctx, opts.Settings, how)
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: opts, Header: header, Setup: setupOf(opts)}
	rep.Runs, err = bench.Interleave(ctx, &rep.Header, opts.Runs, opts.Variants, bench.VariantName, func(v bench.Variant, r bench.Run) (*RunResult, error) {
		opts.Progressf("[%s] capacity: %s, run %d of %d", rep.Elapsed(), v.Name, r.Number, opts.Runs)
		return runVariant(ctx, opts, v, r.Number)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// runner is one run's state: its stack, the benchmark's client and watch,
// the nodes registered now, and when each phase ran, for the audit log.
type runner struct {
	opts    Options
	variant bench.Variant
	stack   *framework.Stack
	client  kubernetes.Interface
	watch   *objectWatch
	nodes   []string
	res     *RunResult
	windows phaseWindows
}

// runVariant is one run. An error means nothing could be measured; a run
// that went wrong on the way has Problems.
func runVariant(ctx context.Context, opts Options, v bench.Variant, run int) (_ *RunResult, err error) {
	res := &RunResult{Variant: v.Name, Run: run, PeakRSS: map[string]int64{}}
	workDir, err := opts.NewWorkDir()
	if err != nil {
		return nil, err
	}
	defer func() { opts.DoneWithWorkDir(workDir, err != nil || len(res.Problems) > 0) }()
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:  opts.BinDir,
		WorkDir: workDir,
		Cluster: framework.ClusterOptions{BinDir: opts.ControlPlaneDir, AuditLog: true, KCMArgs: opts.KCMArgs},
		Driver: framework.DriverOptions{
			Topology: true,
			// Not one of the nodes: the driver answers for whichever
			// segment the sidecar names.
			NodeID: "controller",
			Pools:  pools(opts.Classes),
		},
		Sidecar: framework.SidecarOptions{Deferred: true, ExtraRBACManifests: []string{framework.CapacityRBACManifest}},
	})
	if err != nil {
		return nil, fmt.Errorf("start the stack: %w", err)
	}
	defer func() {
		if stopErr := s.Stop(); stopErr != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("stack did not stop cleanly: %v", stopErr))
		}
	}()
	client, err := bench.NewClient(s.Cluster().RESTConfig(), opts.Creator)
	if err != nil {
		return nil, err
	}
	r := &runner{opts: opts, variant: v, stack: s, client: client, res: res}
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	for _, phase := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"convergence and churn", r.fastPhases},
		{"quiet", r.quietPhase},
		{"moving", r.movingPhase},
	} {
		if err := phase.run(ctx); err != nil {
			r.problem("%s: %v", phase.name, err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	if err := r.countWrites(); err != nil {
		r.problem("audit log: %v", err)
	}
	return res, nil
}

func (r *runner) problem(format string, args ...any) {
	r.opts.Problem(&r.res.Problems, format, args...)
}

// pools are the driver's pools of the classes.
func pools(classes []Class) map[string]int64 {
	out := map[string]int64{}
	for _, c := range classes {
		out[c.Pool] = c.PoolSize
	}
	return out
}
