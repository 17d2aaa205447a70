package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Run sets up one stack with Options.Objects bound claims and PVs and
// runs every variant Options.Runs times on it, interleaved.
func Run(ctx context.Context, opts Options, how bench.Invocation) (_ *Report, err error) {
	if opts.Objects <= 0 || opts.Batch <= 0 || opts.Runs <= 0 || len(opts.Variants) == 0 {
		return nil, errors.New("options need Objects, Batch, Runs and Variants")
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
	order := 0
	for run := 1; run <= opts.Runs; run++ {
		for _, v := range opts.Variants {
			order++
			m.progress("[%s] run %d/%d: %s, run %d of %d", m.elapsed(), order, opts.Runs*len(opts.Variants), v.Name, run, opts.Runs)
			res := m.runSidecar(ctx, v, run, order)
			rep.Runs = append(rep.Runs, res)
			m.progress("  peak RSS %.1f MiB, RSS at end %.1f MiB, CPU %.2f s (%.2f s to sync in %.2f s), run took %s",
				measure.MiB(res.End.PeakRSS), measure.MiB(res.End.RSS), res.CPU.Seconds(), res.SyncCPU.Seconds(), res.SyncTime.Seconds(), res.Wall.Round(100*time.Millisecond))
			if ctx.Err() != nil {
				break
			}
		}
	}
	if err := m.stack.Stop(); err != nil {
		rep.Setup.Problems = append(rep.Setup.Problems, fmt.Sprintf("stack did not stop cleanly: %v", err))
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

// runner is the state Run shares between its steps.
type runner struct {
	opts    Options
	rep     *Report
	workDir string
	stack   *framework.Stack
	client  kubernetes.Interface
}

func (m *runner) progress(format string, args ...any) { m.opts.Progressf(format, args...) }

func (m *runner) elapsed() time.Duration {
	return time.Since(m.rep.Started).Round(time.Second)
}

// setUp starts the stack without a sidecar and fills it. No audit log: no
// request is counted here, and a blocking audit log would only slow the
// creation of the pairs.
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
	m.rep.Setup.Objects = o.Objects
	m.rep.Setup.StackStart = time.Since(start)
	if m.client, err = bench.NewClient(s.Cluster().RESTConfig(), o.Creator); err != nil {
		return err
	}
	if err := bench.CreateNamespaceAndClass(ctx, m.client, s.DriverName()); err != nil {
		return err
	}
	m.progress("[%s] memory: creating %s bound claims and PVs", m.elapsed(), bench.Thousands(o.Objects))
	if err := m.fill(ctx); err != nil {
		return err
	}
	st := m.rep.Setup
	m.progress("  created in %.1f s (other processes used %.2f cores), settled in %.1f s: %d claims and %d PVs Bound, %d rewritten while settling",
		st.Create.Seconds(), st.OtherCores, st.Settle.Seconds(), st.ClaimsBound, st.VolumesBound, st.Rewritten)
	return nil
}
