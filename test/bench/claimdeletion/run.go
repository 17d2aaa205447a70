package claimdeletion

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Run runs every controller Options.Runs times, interleaved,
// each run on a fresh stack.
func Run(ctx context.Context, opts Options, how bench.Invocation) (*Report, error) {
	if opts.Claims <= 0 || opts.Runs <= 0 || len(opts.Controllers) == 0 {
		return nil, errors.New("options need Claims, Runs and Controllers")
	}
	header, err := bench.Start(ctx, opts.Settings, how)
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: opts, Header: header}
	name := func(c Controller) string { return c.Name }
	rep.Runs, err = bench.Interleave(ctx, &rep.Header, opts.Runs, opts.Controllers, name, func(c Controller, r bench.Run) (*RunResult, error) {
		opts.Progressf("[%s] %s, run %d of %d", rep.Elapsed(), c.Name, r.Number, opts.Runs)
		return runDeletion(ctx, opts, c, r.Number)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// runDeletion is one run. An error means nothing could be measured; a run
// that went wrong on the way has Problems.
func runDeletion(ctx context.Context, opts Options, c Controller, run int) (_ *RunResult, err error) {
	res := &RunResult{Controller: c.Name, Run: run}
	workDir, err := opts.NewWorkDir()
	if err != nil {
		return nil, err
	}
	defer func() { opts.DoneWithWorkDir(workDir, err != nil || len(res.Problems) > 0) }()
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:  opts.BinDir,
		WorkDir: workDir,
		Cluster: framework.ClusterOptions{
			BinDir:         opts.ControlPlaneDir,
			AuditLog:       true,
			KCMArgs:        opts.KCMArgs,
			KCMControllers: c.KCMControllers,
		},
		Sidecar: framework.SidecarOptions{
			Verbosity:          opts.SidecarVerbosity,
			ExtraArgs:          slices.Concat(opts.SidecarArgs, c.SidecarArgs),
			ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("start the stack: %w", err)
	}
	defer func() {
		if stopErr := s.Stop(); stopErr != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("stack did not stop cleanly: %v", stopErr))
		}
	}()
	for _, err := range []error{measureDeletion(ctx, opts, c, s, res), measureQuietDeletions(ctx, opts, s, res)} {
		if err != nil {
			opts.Problem(&res.Problems, "%v", err)
		}
	}
	return res, nil
}
