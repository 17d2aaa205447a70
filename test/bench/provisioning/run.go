package provisioning

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// RunScenarios runs the provisioning benchmark once per scenario, each
// with base's other options. A scenario that cannot run (its stack does not
// start) ends the benchmark: the later ones would fail the same way.
func RunScenarios(ctx context.Context, base Options, scenarios []Scenario, how bench.Invocation) ([]*ScenarioResult, error) {
	var out []*ScenarioResult
	start := time.Now()
	for i, s := range scenarios {
		base.Progressf("[%s] scenario %d/%d: %s, %d runs per configuration", time.Since(start).Round(time.Second), i+1, len(scenarios), s.Name(), s.Runs)
		rep, err := Run(ctx, s.Options(base), how)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.Name(), err)
		}
		rep.Title = s.Name()
		out = append(out, &ScenarioResult{Scenario: s, Report: rep})
	}
	return out, nil
}

// Run runs every variant Options.Runs times, interleaved, each run on a
// fresh stack, and returns the results.
func Run(ctx context.Context, opts Options, how bench.Invocation) (*Report, error) {
	if opts.Claims <= 0 || opts.Runs <= 0 || len(opts.Variants) == 0 {
		return nil, errors.New("options need Claims, Runs and Variants")
	}
	header, err := bench.Start(ctx, opts.Settings, how)
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: opts, Header: header}
	for _, v := range opts.Variants {
		rep.Variants = append(rep.Variants, &VariantResult{Variant: v})
	}
	name := func(vr *VariantResult) string { return vr.Variant.Name }
	_, err = bench.Interleave(ctx, &rep.Header, opts.Runs, rep.Variants, name, func(vr *VariantResult, r bench.Run) (*RunResult, error) {
		opts.Progressf("[%s] run %d/%d: %s, run %d of %d", rep.Elapsed(), r.Order, r.Total, vr.Variant.Name, r.Number, opts.Runs)
		res, commands, err := runOnce(ctx, opts, vr.Variant, r.Number, r.Order)
		if err != nil {
			return nil, err
		}
		vr.Runs = append(vr.Runs, res)
		if vr.Commands == nil {
			vr.Commands = commands
		}
		return res, nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}
