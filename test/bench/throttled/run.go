package throttled

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/claimwatch"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Run runs every configuration Options.Runs times, interleaved, each run
// on a fresh stack.
func Run(ctx context.Context, opts Options, how bench.Invocation) (*Report, error) {
	if opts.Claims <= 0 || opts.Runs <= 0 || len(opts.Variants) == 0 || opts.APIRateLimit <= 0 {
		return nil, errors.New("options need Claims, Runs, Variants and APIRateLimit")
	}
	header, err := bench.Start(ctx, opts.Settings, how)
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: opts, Header: header, Variants: opts.Variants}
	rep.Runs, err = bench.Interleave(ctx, &rep.Header, opts.Runs, opts.Variants, bench.VariantName, func(v bench.Variant, r bench.Run) (*RunResult, error) {
		opts.Progressf("[%s] throttled run %d/%d: %s, run %d of %d", rep.Elapsed(), r.Order, r.Total, v.Name, r.Number, opts.Runs)
		return runOnce(ctx, opts, v, r.Number, r.Order)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// runner is one run: a fresh stack whose driver throttles, a warm-up
// claim, then the measured provisioning and deletion.
type runner struct {
	opts   Options
	result *RunResult

	stack   *framework.Stack
	client  kubernetes.Interface
	tracker *claimwatch.Tracker
}

// runOnce runs one configuration once. An error means the run could not
// measure anything (the stack did not start); a run that went wrong on the
// way returns its result with Problems set.
func runOnce(ctx context.Context, opts Options, v bench.Variant, run, order int) (_ *RunResult, err error) {
	r := &runner{opts: opts, result: &RunResult{Variant: v.Name, Run: run, Order: order, Claims: opts.Claims}}
	workDir, err := opts.NewWorkDir()
	if err != nil {
		return nil, err
	}
	// A run that only ran out of time went as this part expects of some
	// configurations; --keep-work-dirs keeps its logs.
	defer func() { opts.DoneWithWorkDir(workDir, err != nil || len(r.result.Problems) > 0) }()
	r.stack, err = framework.StartStack(ctx, framework.StackOptions{
		BinDir:  opts.BinDir,
		WorkDir: workDir,
		Cluster: framework.ClusterOptions{BinDir: opts.ControlPlaneDir, KCMArgs: opts.KCMArgs},
		Driver:  framework.DriverOptions{APIRateLimit: opts.APIRateLimit, APIRateBurst: opts.APIRateBurst},
		Sidecar: framework.SidecarOptions{
			Binary:       v.Binary,
			RBACManifest: v.RBACManifest,
			Verbosity:    opts.SidecarVerbosity,
			ExtraArgs:    slices.Concat(opts.SidecarArgs, v.Args),
			Env:          v.Env,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("start the stack: %w", err)
	}
	opts.EndRun(r.stack, r.measure(ctx), &r.result.Problems)
	return r.result, nil
}

func (r *runner) progress(format string, args ...any) { r.opts.Progressf(format, args...) }

func (r *runner) problem(format string, args ...any) {
	r.opts.Problem(&r.result.Problems, format, args...)
}

// measure runs the phases. It stops at the first error that makes the rest
// meaningless; a phase that runs out of time is recorded, and only a
// provisioning that did ends the run early, since deleting claims still
// being provisioned would measure something else.
func (r *runner) measure(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var err error
	if r.client, err = bench.NewClient(r.stack.Cluster().RESTConfig(), r.opts.Creator); err != nil {
		return err
	}
	if err := bench.CreateNamespaceAndClass(ctx, r.client, r.stack.DriverName()); err != nil {
		return err
	}
	r.tracker = claimwatch.New(bench.ClaimNamespace)
	if err := r.tracker.Start(ctx, r.client); err != nil {
		return err
	}
	if err := r.warmUp(ctx); err != nil {
		return fmt.Errorf("warm-up claim: %w", err)
	}
	names := bench.ClaimNames("claim", r.opts.Claims)
	if err := r.provision(ctx, names); err != nil {
		return err
	}
	if r.result.Provisioning.TimedOut {
		r.result.DeletionSkipped = true
		return nil
	}
	return r.deleteAll(ctx, names)
}
