package gobench

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// Markdown writes the section of the report.
func (g *Results) Markdown() string {
	var b strings.Builder
	b.WriteString("## Go benchmarks (hot paths)\n\n")
	fmt.Fprintf(&b, "`%s`, from the repository root", g.Command)
	if g.RawOutput != "" {
		fmt.Fprintf(&b, " (output in %s)", g.RawOutput)
	}
	fmt.Fprintf(&b, "; took %s, compilation included.", g.Duration.Round(time.Second))
	if g.Count > 1 {
		fmt.Fprintf(&b, " Each figure is the median of %d runs, with (min–max) when they differ.", g.Count)
	} else {
		b.WriteString(" One run each: figures to compare roughly, not to quote.")
	}
	b.WriteString("\n\n")
	if g.CPU != "" {
		procs := ""
		if len(g.Results) > 0 && g.Results[0].Procs > 0 {
			procs = fmt.Sprintf(", GOMAXPROCS %d", g.Results[0].Procs)
		}
		fmt.Fprintf(&b, "- CPU: %s (%s/%s%s)\n\n", g.CPU, g.GOOS, g.GOARCH, procs)
	}
	for _, f := range g.Failures {
		fmt.Fprintf(&b, "**Failed:** %s\n\n", f)
	}
	if len(g.Results) > 0 {
		t := bench.Table{Header: []string{"package", "benchmark", "time/op", "B/op", "allocs/op", "reported by the benchmark"}, Right: bench.RightFrom(2, 6)}
		for _, r := range g.Results {
			t.Add(shortPkg(r.Package), r.Name, fmtTimePerOp(r.Spread("ns/op")),
				bench.FmtSpread(r.Spread("B/op"), 0, ""), bench.FmtSpread(r.Spread("allocs/op"), 0, ""), r.reported())
		}
		t.Write(&b)
	}
	if len(g.Empty) > 0 {
		short := make([]string, len(g.Empty))
		for i, p := range g.Empty {
			short[i] = shortPkg(p)
		}
		fmt.Fprintf(&b, "No benchmark result from %s.\n\n", strings.Join(short, ", "))
	}
	return b.String()
}

// fmtTimePerOp writes nanoseconds in the unit that fits the median, to
// three significant digits.
func fmtTimePerOp(s measure.Spread) string {
	if math.IsNaN(s.Median) {
		return bench.FmtSpread(s, 0, "")
	}
	scale, unit := 1.0, " ns"
	switch m := math.Abs(s.Median); {
	case m >= 1e9:
		scale, unit = 1e9, " s"
	case m >= 1e6:
		scale, unit = 1e6, " ms"
	case m >= 1e3:
		scale, unit = 1e3, " µs"
	}
	scaled := measure.Spread{Median: s.Median / scale, Min: s.Min / scale, Max: s.Max / scale, N: s.N}
	prec := 0
	switch m := math.Abs(scaled.Median); {
	case m < 10:
		prec = 2
	case m < 100:
		prec = 1
	}
	return bench.FmtSpread(scaled, prec, unit)
}
