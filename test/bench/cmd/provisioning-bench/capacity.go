package main

import (
	"context"

	"github.com/csi-protect/external-provisioner/test/bench/capacity"
	"github.com/csi-protect/external-provisioner/test/bench/plots"
)

// runCapacity runs the capacity benchmark, ours against the baseline when
// one is given, draws its plots (the queue depth and the p99 error over the
// moving phase) into outDir and writes capacity.md and capacity.json.
func runCapacity(ctx context.Context, cfg config, outDir string) (*capacity.Report, error) {
	opts := capacity.DefaultOptions()
	if cfg.quick {
		opts = capacity.QuickOptions()
	}
	cfg.apply(&opts.Settings)
	if cfg.base != nil {
		opts.Variants = append(opts.Variants, *cfg.base)
	}
	rep, err := capacity.Run(ctx, opts, invocation())
	if err != nil {
		return nil, err
	}
	if rep.Plots, err = plots.Capacity(rep, outDir); err != nil {
		return rep, err
	}
	return rep, finish(outDir, "capacity", "capacity", true, rep)
}
