package main

import (
	"context"

	"github.com/csi-protect/external-provisioner/test/bench/throttled"
)

// runThrottled runs the throttled-backend benchmark and writes
// throttled.md and throttled.json. --runs, --sidecar-arg and --kcm-arg
// apply to it as to the others; with --baseline, the upstream binary is
// one more configuration, which its goals need.
func runThrottled(ctx context.Context, cfg config, outDir string) (*throttled.Report, error) {
	opts := throttled.DefaultOptions()
	if cfg.quick {
		opts = throttled.QuickOptions()
	}
	cfg.apply(&opts.Settings)
	if cfg.base != nil {
		opts.Variants = append(opts.Variants, *cfg.base)
	}
	rep, err := throttled.Run(ctx, opts, invocation())
	if err != nil {
		return nil, err
	}
	return rep, finish(outDir, "throttled", "throttled backend", true, rep)
}
