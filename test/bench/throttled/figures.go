package throttled

import (
	"math"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// figure is one of a run's figures, as the report shows it.
type figure struct {
	name string
	prec int
	unit string
	// value is NaN when the run did not measure it.
	value func(*RunResult) float64
	// deletion tells a deletion figure from a provisioning one: each is a
	// lower bound in a run whose phase ran out of time, since the
	// sidecar had more to do.
	deletion bool
}

// The figures of a run, in the order the report shows them.
var (
	figBoundIn = figure{name: "time until all Bound", prec: 1, unit: " s",
		value: func(x *RunResult) float64 { return x.Provisioning.seconds() }}
	figLatencyP50 = figure{name: "claim latency p50 (created → Bound)", prec: 1, unit: " s",
		value: func(x *RunResult) float64 { return positive(x.LatencyP50) }}
	figLatencyP99 = figure{name: "claim latency p99", prec: 1, unit: " s",
		value: func(x *RunResult) float64 { return positive(x.LatencyP99) }}
	figCreateFailed = figure{name: "failed CreateVolume calls",
		value: func(x *RunResult) float64 { return float64(x.Provisioning.Calls.Failed) }}
	figCreateSucceeded = figure{name: "succeeded CreateVolume calls",
		value: func(x *RunResult) float64 { return float64(x.Provisioning.Calls.Succeeded) }}
	figProvisionCPU = figure{name: "sidecar CPU while provisioning", prec: 1, unit: " s",
		value: func(x *RunResult) float64 { return positive(x.Provisioning.SidecarCPU) }}
	figPVsGoneIn = figure{name: "time until all PVs gone", prec: 1, unit: " s", deletion: true,
		value: deleted(func(x *RunResult) float64 { return x.Deletion.seconds() })}
	figDeleteFailed = figure{name: "failed DeleteVolume calls", deletion: true,
		value: deleted(func(x *RunResult) float64 { return float64(x.Deletion.Calls.Failed) })}
	figDeleteSucceeded = figure{name: "succeeded DeleteVolume calls", deletion: true,
		value: deleted(func(x *RunResult) float64 { return float64(x.Deletion.Calls.Succeeded) })}
	figDeletionCPU = figure{name: "sidecar CPU while deleting", prec: 1, unit: " s", deletion: true,
		value: deleted(func(x *RunResult) float64 { return positive(x.Deletion.SidecarCPU) })}

	figures = []figure{figBoundIn, figLatencyP50, figLatencyP99, figCreateFailed, figCreateSucceeded, figProvisionCPU,
		figPVsGoneIn, figDeleteFailed, figDeleteSucceeded, figDeletionCPU}
)

// lowerBound tells whether the run's value of f is only a lower bound.
func (f figure) lowerBound(x *RunResult) bool {
	if f.deletion {
		return x.Deletion.TimedOut
	}
	return x.Provisioning.TimedOut
}

// positive is v, or NaN for the 0 that stands for not measured.
func positive(v float64) float64 {
	if v <= 0 {
		return math.NaN()
	}
	return v
}

// deleted is a deletion figure, NaN for a run that skipped deletion.
func deleted(f func(*RunResult) float64) func(*RunResult) float64 {
	return func(x *RunResult) float64 {
		if x.DeletionSkipped {
			return math.NaN()
		}
		return f(x)
	}
}

// spread is a figure over a configuration's runs. LowerBound is set when
// any of those runs ran out of time: the median is then a lower bound too.
type spread struct {
	measure.Spread
	LowerBound bool
}

// spread is f over the runs of variant without problems; a run that only
// ran out of time counts, with its lower bound.
func (r *Report) spread(variant string, f figure) spread {
	var v []float64
	var s spread
	for _, run := range r.Runs {
		if run.Variant != variant || len(run.Problems) > 0 {
			continue
		}
		x := f.value(run)
		v = append(v, x)
		if !math.IsNaN(x) && f.lowerBound(run) {
			s.LowerBound = true
		}
	}
	s.Spread = measure.SpreadOf(v)
	return s
}

// format writes a spread as "median (min–max)", "≥ " before it when it is
// a lower bound.
func (s spread) format(f figure) string {
	out := bench.FmtSpread(s.Spread, f.prec, f.unit)
	if s.LowerBound && !math.IsNaN(s.Median) {
		out = "≥ " + out
	}
	return out
}

// ratio is ours / base of the medians, and what it is: exact, a lower
// bound (ours ran out of time), an upper bound (the baseline did), or
// unknown (both did).
func ratio(ours, base spread) (q float64, bound string) {
	q = measure.Ratio(ours.Spread, base.Spread)
	switch {
	case ours.LowerBound && base.LowerBound:
		return math.NaN(), ""
	case ours.LowerBound:
		return q, "≥ "
	case base.LowerBound:
		return q, "≤ "
	}
	return q, ""
}

// formatRatio writes a ratio with its bound, "–" when unknown.
func formatRatio(q float64, bound string) string {
	if s := bench.FmtRatio(q); s != "–" {
		return bound + s
	}
	return "–"
}
