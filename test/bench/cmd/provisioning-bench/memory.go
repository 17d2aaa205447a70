package main

import (
	"context"
	"errors"
	"os"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// runMemory runs the memory benchmark and writes memory.md and
// memory.json. --runs, --sidecar-arg and --kcm-arg apply to it as to the
// others; the number of claims and PVs is the mode's (10,000, quick 2,000).
func runMemory(ctx context.Context, cfg config, outDir string) (*bench.MemoryReport, error) {
	opts := bench.DefaultMemoryOptions()
	if cfg.quick {
		opts = bench.QuickMemoryOptions()
	}
	if cfg.runs > 0 {
		opts.Runs = cfg.runs
	}
	opts.KCMArgs = bench.OverrideArgs(opts.KCMArgs, cfg.kcmArgs)
	opts.SidecarArgs = bench.OverrideArgs(opts.SidecarArgs, cfg.sidecarArgs)
	opts.BinDir, opts.ControlPlaneDir, opts.KeepWorkDir, opts.Progress = cfg.binDir, cfg.cpDir, cfg.keepWork, os.Stderr
	if cfg.heapProfiles {
		opts.HeapProfileDir = outDir
	}
	if cfg.base != nil {
		opts.Variants = append(opts.Variants, *cfg.base)
	}
	rep, err := bench.RunMemory(ctx, opts, invocation())
	if err != nil {
		return nil, err
	}
	if err := writeOutputs(outDir, "memory", "memory", rep, rep.Markdown()); err != nil {
		return rep, err
	}
	if rep.HasProblems() {
		return rep, errors.New("some memory runs had errors (see memory.md)")
	}
	return rep, nil
}
