package bench

import (
	"context"
	"fmt"
	"time"
)

// Run is one run of one configuration in an interleaved series.
type Run struct {
	// Number counts the configuration's runs from 1; Order counts the
	// series' runs from 1, of Total.
	Number, Order, Total int
}

// Interleave runs the part of h: each of configs runs times, interleaved
// (A, B, A, B, ...) so that a drift of the machine hits all alike. It
// returns the results in the order of the runs and sets h.Duration. It
// stops at the first error, which it names with the configuration (name)
// and run, or once ctx has ended.
func Interleave[C, R any](ctx context.Context, h *Header, runs int, configs []C, name func(C) string, run func(C, Run) (R, error)) ([]R, error) {
	defer h.Finish()
	var results []R
	r := Run{Total: runs * len(configs)}
	for r.Number = 1; r.Number <= runs; r.Number++ {
		for _, c := range configs {
			r.Order++
			res, err := run(c, r)
			if err != nil {
				return nil, fmt.Errorf("%s, run %d: %w", name(c), r.Number, err)
			}
			results = append(results, res)
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
		}
	}
	return results, nil
}

// VariantName names a variant in Interleave's errors.
func VariantName(v Variant) string { return v.Name }

// Elapsed is the time since the part started, to the second, for its
// progress lines.
func (h *Header) Elapsed() time.Duration { return time.Since(h.Started).Round(time.Second) }

// Finish records the part's duration once it is done.
func (h *Header) Finish() { h.Duration = time.Since(h.Started) }
