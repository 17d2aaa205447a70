package measure

import (
	"math"
	"slices"
	"time"
)

// Spread is a figure over several runs: the median, and the lowest and
// highest run.
type Spread struct {
	Median, Min, Max float64
	N                int
}

// SpreadOf summarises values; NaN values (a run that could not measure the
// figure) are left out.
func SpreadOf(values []float64) Spread {
	var v []float64
	for _, x := range values {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return Spread{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	slices.Sort(v)
	return Spread{Median: median(v), Min: v[0], Max: v[len(v)-1], N: len(v)}
}

// median of sorted values; the mean of the two middle ones for an even
// count.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// durations, NaN seconds for none. Nearest rank never invents a value that
// no claim had, which matters for p99 of 100 claims.
func Percentile(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return math.NaN()
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = max(1, min(rank, len(s)))
	return s[rank-1].Seconds()
}

// Seconds converts a duration for a Spread, NaN when it was not measured.
func Seconds(d time.Duration) float64 {
	if d <= 0 {
		return math.NaN()
	}
	return d.Seconds()
}

// Ratio divides medians, NaN when either is missing.
func Ratio(a, b Spread) float64 {
	if math.IsNaN(a.Median) || math.IsNaN(b.Median) || b.Median == 0 {
		return math.NaN()
	}
	return a.Median / b.Median
}

// ZeroIfNaN is f, or 0 for a figure not measured: a bar or a difference
// needs a number.
func ZeroIfNaN(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return f
}

// MiB converts bytes.
func MiB[T int64 | float64](bytes T) float64 { return float64(bytes) / (1 << 20) }
