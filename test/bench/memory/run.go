package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Run sets up one stack and, for each of Options.Sizes in turn, grows it
// to that many bound claims and PVs and runs every variant Options.Runs
// times on it, interleaved; then it runs the sweep of memory limits at the
// largest size. A fill that fails ends the sizes there: the report keeps
// what the smaller ones measured.
func Run(ctx context.Context, opts Options, how bench.Invocation) (_ *Report, err error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	header, err := bench.Start(ctx, opts.Settings, how)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Options: opts, Header: header,
		Variants: opts.Variants, SidecarArgs: opts.SidecarArgs,
		GoalMiB: opts.GoalMiB, Shipped: opts.Shipped, Batch: opts.Batch, SyncTimeout: opts.SyncTimeout,
	}
	m := &runner{opts: opts, rep: rep}
	if m.workDir, err = opts.NewWorkDir(); err != nil {
		return nil, err
	}
	defer func() { opts.DoneWithWorkDir(m.workDir, err != nil || rep.HasProblems()) }()
	if err := m.setUp(ctx); err != nil {
		if m.stack != nil {
			_ = m.stack.Stop()
		}
		return nil, err
	}
	filled := true
	for _, size := range opts.Sizes {
		if err := m.fillTo(ctx, size); err != nil {
			rep.Setup.Problems = append(rep.Setup.Problems, fmt.Sprintf("filling to %s pairs: %v", bench.Thousands(size), err))
			m.progress("  problem: %v", err)
			filled = false
			break
		}
		m.runVariants(ctx, size)
		if ctx.Err() != nil {
			break
		}
	}
	if filled && ctx.Err() == nil && len(opts.Limits.LadderMiB) > 0 {
		rep.Limits = m.sweepLimits(ctx)
	}
	rep.Setup.End = readStackMemory(ctx, m.stack.Cluster())
	if err := m.stack.Stop(); err != nil {
		rep.Setup.Problems = append(rep.Setup.Problems, fmt.Sprintf("stack did not stop cleanly: %v", err))
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	rep.Finish()
	return rep, nil
}

// validate checks what Run cannot do without.
func (o Options) validate() error {
	if len(o.Sizes) == 0 || o.Batch <= 0 || o.Runs <= 0 || len(o.Variants) == 0 || o.FillWorkers <= 0 {
		return errors.New("options need Sizes, Batch, Runs, Variants and FillWorkers")
	}
	if o.Sizes[0] <= 0 || !slices.IsSorted(o.Sizes) || len(slices.Compact(slices.Clone(o.Sizes))) != len(o.Sizes) {
		return fmt.Errorf("sizes %v: want positive and ascending", o.Sizes)
	}
	return nil
}

// runner is the state Run shares between its steps.
type runner struct {
	opts    Options
	rep     *Report
	workDir string
	stack   *framework.Stack
	client  kubernetes.Interface
	// filled is the number of pairs in the cluster.
	filled int
	// order counts the sidecars started, sweep included.
	order int
}

func (m *runner) progress(format string, args ...any) { m.opts.Progressf(format, args...) }

func (m *runner) elapsed() time.Duration {
	return m.rep.Elapsed()
}

// runVariants is every variant's runs at the current size, interleaved.
func (m *runner) runVariants(ctx context.Context, pairs int) {
	o := m.opts
	for run := 1; run <= o.Runs; run++ {
		for i, v := range o.Variants {
			m.order++
			m.progress("[%s] %s pairs, run %d/%d: %s, run %d of %d", m.elapsed(), bench.Thousands(pairs), (run-1)*len(o.Variants)+i+1, o.Runs*len(o.Variants), v.Name, run, o.Runs)
			res := m.runSidecar(ctx, sidecarRun{variant: v, pairs: pairs, run: run, order: m.order})
			m.rep.Runs = append(m.rep.Runs, res)
			m.progressRun(res)
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// progressRun is one line of a run's figures.
func (m *runner) progressRun(res *SidecarRun) {
	m.progress("  peak RSS %.1f MiB, RSS at end %.1f MiB, CPU %.2f s (%.2f s to sync in %.2f s), first claim Bound after %.2f s, run took %s",
		measure.MiB(res.End.PeakRSS), measure.MiB(res.End.RSS), res.CPU.Seconds(), res.SyncCPU.Seconds(), res.SyncTime.Seconds(), res.FirstClaimBound.Seconds(), res.Wall.Round(100*time.Millisecond))
}

// setUp starts the stack without a sidecar, with the namespaces and the
// class, but no pair yet. No audit log: no request is counted here, and a
// blocking audit log would only slow the creation of the pairs.
func (m *runner) setUp(ctx context.Context) error {
	o := m.opts
	m.progress("[%s] memory: starting the stack", m.elapsed())
	start := time.Now()
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:  o.BinDir,
		WorkDir: m.workDir,
		Cluster: framework.ClusterOptions{BinDir: o.ControlPlaneDir, KCMArgs: o.KCMArgs},
		Sidecar: framework.SidecarOptions{
			Deferred: true,
			// PVC protection's RBAC, installed once for every variant:
			// it only grants reads of pods, which the other variants
			// never make.
			ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
		},
	})
	if err != nil {
		return fmt.Errorf("start the stack: %w", err)
	}
	m.stack = s
	m.rep.Setup.StackStart = time.Since(start)
	if m.client, err = bench.NewClient(s.Cluster().RESTConfig(), o.Creator); err != nil {
		return err
	}
	if err := bench.CreateNamespaceAndClass(ctx, m.client, s.DriverName()); err != nil {
		return err
	}
	return bench.EnsureNamespace(ctx, m.client, cachedNamespace)
}
