package gobench

import (
	"slices"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// Results are the parsed results of a go test -bench run.
type Results struct {
	// Command is the go test command line, run from the repository root.
	Command   string        `json:"command"`
	Count     int           `json:"count"`
	RawOutput string        `json:"rawOutput,omitempty"`
	Duration  time.Duration `json:"duration"`
	GOOS      string        `json:"goos"`
	GOARCH    string        `json:"goarch"`
	CPU       string        `json:"cpu"`
	Results   []*Benchmark  `json:"results"`
	// Empty are the packages that ran without a benchmark result.
	Empty []string `json:"empty,omitempty"`
	// Failures are the benchmarks and packages that failed.
	Failures []string `json:"failures,omitempty"`
}

// Benchmark is one benchmark over its runs.
type Benchmark struct {
	Package string `json:"package"`
	// Name is the benchmark's name without the GOMAXPROCS suffix.
	Name  string `json:"name"`
	Procs int    `json:"procs,omitempty"`
	// Iterations and Samples have one entry per run; Samples are keyed by
	// unit: ns/op, B/op, allocs/op and any the benchmark reports itself.
	Iterations []int64              `json:"iterations"`
	Samples    map[string][]float64 `json:"samples"`
	// Summary is the median (min–max) of each unit's samples.
	Summary map[string]measure.Spread `json:"summary"`
}

// Spread of one unit; NaN when the benchmark did not report it.
func (g *Benchmark) Spread(unit string) measure.Spread {
	if s, ok := g.Summary[unit]; ok {
		return s
	}
	return measure.SpreadOf(nil)
}

// standardUnits are what go test -benchmem reports for every benchmark.
var standardUnits = []string{"ns/op", "B/op", "allocs/op"}

// reported lists the units the benchmark reported itself (b.SetBytes,
// b.ReportMetric), e.g. "58.49 MB/s (57.97–59.01)", or "–".
func (g *Benchmark) reported() string {
	var units []string
	for unit := range g.Summary {
		if !slices.Contains(standardUnits, unit) {
			units = append(units, unit)
		}
	}
	if len(units) == 0 {
		return "–"
	}
	slices.Sort(units)
	parts := make([]string, len(units))
	for i, unit := range units {
		parts[i] = bench.FmtSpread(g.Summary[unit], 2, " "+unit)
	}
	return strings.Join(parts, ", ")
}

// HasProblems tells whether a benchmark or a package failed.
func (g *Results) HasProblems() bool { return len(g.Failures) > 0 }
