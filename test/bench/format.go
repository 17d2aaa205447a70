package bench

import (
	"fmt"
	"math"
	"strings"
)

// table is a markdown table.
type table struct {
	header []string
	// right marks the columns aligned right (numbers).
	right []bool
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(b *strings.Builder) {
	b.WriteString("| " + strings.Join(t.header, " | ") + " |\n|")
	for i := range t.header {
		if i < len(t.right) && t.right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// rightFrom aligns every column from the i-th on to the right.
func rightFrom(i, n int) []bool {
	r := make([]bool, n)
	for j := i; j < n; j++ {
		r[j] = true
	}
	return r
}

// fmtSpread writes a figure over runs as "median (min–max)", or just the
// value when the runs agree or there was one, or "–" when not measured.
func fmtSpread(s Spread, prec int, unit string) string {
	if math.IsNaN(s.Median) {
		return "–"
	}
	v := fmt.Sprintf("%.*f%s", prec, s.Median, unit)
	if s.N > 1 && fmt.Sprintf("%.*f", prec, s.Min) != fmt.Sprintf("%.*f", prec, s.Max) {
		v += fmt.Sprintf(" (%.*f–%.*f)", prec, s.Min, prec, s.Max)
	}
	return v
}

// fmtDiff writes a difference with its sign.
func fmtDiff(d float64, prec int) string {
	if math.IsNaN(d) {
		return "–"
	}
	if fmt.Sprintf("%.*f", prec, math.Abs(d)) == fmt.Sprintf("%.*f", prec, 0.0) {
		return fmt.Sprintf("%.*f", prec, 0.0)
	}
	return fmt.Sprintf("%+.*f", prec, d)
}

func pct(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// ratio divides medians, NaN when either is missing.
func ratio(a, b Spread) float64 {
	if math.IsNaN(a.Median) || math.IsNaN(b.Median) || b.Median == 0 {
		return math.NaN()
	}
	return a.Median / b.Median
}

// thousands writes 1000 as 1,000, as the report's prose does.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
