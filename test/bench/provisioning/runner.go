package provisioning

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/claimwatch"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// warmupTimeout bounds the single warm-up claim.
const warmupTimeout = 2 * time.Minute

// runner is one run: a fresh stack, a warm-up claim, then the measured
// provisioning and deletion of Options.Claims claims.
type runner struct {
	opts    Options
	variant bench.Variant
	result  *RunResult
	workDir string

	stack   *framework.Stack
	client  kubernetes.Interface
	tracker *claimwatch.Tracker
	pids    map[string]int
	// pprofURL serves the sidecar's CPU profile when the run profiles.
	pprofURL string
}

// runOnce runs one variant once. An error means the run could not measure
// anything (the stack did not start); a run that measured something but
// went wrong on the way returns its result with Problems set.
func runOnce(ctx context.Context, opts Options, variant bench.Variant, run, order int) (_ *RunResult, _ []Command, err error) {
	r := &runner{opts: opts, variant: variant, result: &RunResult{Variant: variant.Name, Run: run, Order: order, Claims: opts.Claims}}
	if r.workDir, err = opts.NewWorkDir(); err != nil {
		return nil, nil, err
	}
	defer func() { opts.DoneWithWorkDir(r.workDir, err != nil || len(r.result.Problems) > 0) }()

	if err := r.startStack(ctx); err != nil {
		return nil, nil, err
	}
	commands := r.commands()
	opts.EndRun(r.stack, r.measure(ctx), &r.result.Problems)
	return r.result, commands, nil
}

func (r *runner) progress(format string, args ...any) { r.opts.Progressf(format, args...) }

func (r *runner) problem(format string, args ...any) {
	r.opts.Problem(&r.result.Problems, format, args...)
}

// startStack starts the control plane (with the audit log), the mock driver
// and the sidecar of the variant (its binary, the repository's unless it
// names another) under the shipped RBAC, or the variant's own: the
// sidecar's requests are then the only ones of its ServiceAccount.
func (r *runner) startStack(ctx context.Context) error {
	start := time.Now()
	profiling, apiserverProfiling, err := r.profileArgs()
	if err != nil {
		return err
	}
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:  r.opts.BinDir,
		WorkDir: r.workDir,
		Cluster: framework.ClusterOptions{
			BinDir:        r.opts.ControlPlaneDir,
			AuditLog:      true,
			KCMArgs:       r.opts.KCMArgs,
			APIServerArgs: apiserverProfiling,
		},
		Sidecar: framework.SidecarOptions{
			Binary:       r.variant.Binary,
			RBACManifest: r.variant.RBACManifest,
			Verbosity:    r.opts.SidecarVerbosity,
			ExtraArgs:    slices.Concat(r.opts.SidecarArgs, r.variant.Args, profiling),
		},
	})
	if err != nil {
		return fmt.Errorf("start the stack: %w", err)
	}
	r.stack = s
	r.result.StackStart = time.Since(start)
	r.pids = measure.StackPIDs(s, s.Sidecar())
	if r.client, err = bench.NewClient(s.Cluster().RESTConfig(), r.opts.Creator); err != nil {
		return err
	}
	return nil
}

// commands reads the components' command lines from /proc, so the report
// shows what ran rather than what the benchmark meant to run.
func (r *runner) commands() []Command {
	var out []Command
	for _, name := range []string{measure.ProcessEtcd, measure.ProcessAPIServer, measure.ClientKCM, measure.ProcessDriver, measure.ClientSidecar} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", r.pids[name]))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		args[0] = filepath.Base(args[0])
		line := strings.ReplaceAll(strings.Join(args, " "), r.workDir, "$WORK")
		out = append(out, Command{Component: name, Line: line})
	}
	return out
}

// measure runs the phases. It stops at the first error that makes the rest
// meaningless; a phase that times out is recorded and the run goes on.
func (r *runner) measure(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
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
	prov, err := r.provision(ctx, names)
	if err != nil {
		return err
	}
	if r.opts.SkipDeletion {
		r.result.DeletionSkipped = true
		now := time.Now()
		return r.countRequests(prov, phaseWindow{Window: measure.Window{From: now, To: now}, busy: now})
	}
	del, err := r.deleteAll(ctx, names)
	if err != nil {
		return err
	}
	return r.countRequests(prov, del)
}

// warmUp provisions and deletes one claim before anything is measured, so
// the first measured claims do not pay for the sidecar's cache sync, the
// first connections and the binder's first pass.
func (r *runner) warmUp(ctx context.Context) error {
	names := bench.ClaimNames("warmup", 1)
	if res := r.create(ctx, names, 1); res.Failed > 0 {
		return res.FirstErr
	}
	if err := r.waitCount(ctx, warmupTimeout, "the warm-up claim to be Bound", names, claimwatch.IsSettled); err != nil {
		return err
	}
	if res := r.delete(ctx, names, 1); res.Failed > 0 {
		return res.FirstErr
	}
	if err := r.waitCount(ctx, warmupTimeout, "the warm-up claim and PV to be gone", names, func(c *claimwatch.ClaimTimes) bool {
		return claimwatch.IsGone(c) && claimwatch.IsPVGone(c)
	}); err != nil {
		return err
	}
	_, err := r.waitDriverEmpty(ctx, warmupTimeout)
	time.Sleep(bench.Drain)
	return err
}

// create creates the claims as fast as the API server answers, recording
// each call in the tracker.
func (r *runner) create(ctx context.Context, names []string, workers int) bench.CallResult {
	return bench.CreateClaims(ctx, r.client, names, workers, bench.NewClaim, r.tracker.MarkCreateSent, r.tracker.MarkCreated)
}

// delete deletes the claims as fast as the API server answers.
func (r *runner) delete(ctx context.Context, names []string, workers int) bench.CallResult {
	return bench.DeleteClaims(ctx, r.client, bench.ClaimNamespace, names, workers, r.tracker.MarkDeleteSent)
}

// waitCount waits until every named claim satisfies done.
func (r *runner) waitCount(ctx context.Context, timeout time.Duration, what string, names []string, done func(*claimwatch.ClaimTimes) bool) error {
	return r.stack.WaitFor(ctx, timeout, what, func(context.Context) (bool, error) {
		n := r.tracker.Count(names, done)
		return n == len(names), fmt.Errorf("%d of %d", n, len(names))
	})
}

// waitDriverEmpty waits until the driver holds no volume and returns when
// that happened: the state file's modification time, as the driver
// rewrites it on every change.
func (r *runner) waitDriverEmpty(ctx context.Context, timeout time.Duration) (time.Time, error) {
	var left int
	err := r.stack.WaitFor(ctx, timeout, "the driver to hold no volume", func(context.Context) (bool, error) {
		vols, err := r.stack.DriverVolumes()
		if err != nil {
			return false, err
		}
		left = len(vols)
		return left == 0, fmt.Errorf("%d volumes left", left)
	})
	r.result.DriverVolumesLeft = left
	if err != nil {
		return time.Time{}, err
	}
	st, err := os.Stat(r.stack.StateFile())
	if err != nil {
		return time.Now(), nil
	}
	return st.ModTime(), nil
}

// timedOut tells, after a failed wait, whether the wait only ran out of
// time (recorded, the run goes on) rather than a component dying or the
// benchmark being canceled (the run ends).
func (r *runner) timedOut(ctx context.Context) bool {
	return ctx.Err() == nil && r.stack.CheckAlive() == nil
}
