package bench

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

// spreadOf summarises values; NaN values (a run that could not measure the
// figure) are left out.
func spreadOf(values []float64) Spread {
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

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// durations, NaN seconds for none. Nearest rank never invents a value that
// no claim had, which matters for p99 of 100 claims.
func percentile(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return math.NaN()
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = max(1, min(rank, len(s)))
	return s[rank-1].Seconds()
}

// seconds converts a duration for a Spread, NaN when it was not measured.
func seconds(d time.Duration) float64 {
	if d <= 0 {
		return math.NaN()
	}
	return d.Seconds()
}
