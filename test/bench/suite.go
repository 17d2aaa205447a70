package bench

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Report is a whole benchmark: where it ran, with what, and the results.
type Report struct {
	// Title names the scenario, e.g. "1,000 claims, 200 QPS, ...".
	Title       string           `json:"title,omitempty"`
	Options     Options          `json:"-"`
	Environment Environment      `json:"environment"`
	Invocation  Invocation       `json:"invocation"`
	Started     time.Time        `json:"started"`
	Duration    time.Duration    `json:"duration"`
	Variants    []*VariantResult `json:"variants"`
}

// Invocation is how the benchmark was started, for the report.
type Invocation struct {
	// Command is what the user ran, e.g. "BENCH_QUICK=1 make bench";
	// empty when the program was run directly.
	Command string `json:"command,omitempty"`
	// Program is the program's own command line.
	Program string `json:"program"`
}

// Run runs every variant Options.Runs times, interleaved, each run on a
// fresh stack, and returns the results.
func Run(ctx context.Context, opts Options, how Invocation) (*Report, error) {
	if opts.Claims <= 0 || opts.Runs <= 0 || len(opts.Variants) == 0 {
		return nil, errors.New("options need Claims, Runs and Variants")
	}
	rep := &Report{Options: opts, Invocation: how, Started: time.Now()}
	env, err := gatherEnvironment(ctx, opts)
	if err != nil {
		return nil, err
	}
	rep.Environment = env
	for _, v := range opts.Variants {
		rep.Variants = append(rep.Variants, &VariantResult{Variant: v})
	}
	total := opts.Runs * len(opts.Variants)
	order := 0
	for run := 1; run <= opts.Runs; run++ {
		for _, vr := range rep.Variants {
			order++
			progress(opts, "[%s] run %d/%d: %s, run %d of %d", time.Since(rep.Started).Round(time.Second), order, total, vr.Variant.Name, run, opts.Runs)
			res, commands, err := runOnce(ctx, opts, vr.Variant, run, order)
			if err != nil {
				return nil, fmt.Errorf("%s, run %d: %w", vr.Variant.Name, run, err)
			}
			vr.Runs = append(vr.Runs, res)
			if vr.Commands == nil {
				vr.Commands = commands
			}
			if err := ctx.Err(); err != nil {
				return nil, context.Cause(ctx)
			}
		}
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

func progress(opts Options, format string, args ...any) {
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, format+"\n", args...)
	}
}
