package bench

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// Table is a markdown table.
type Table struct {
	Header []string
	// Right marks the columns aligned right (numbers).
	Right []bool
	Rows  [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Write writes the table and a blank line after it.
func (t *Table) Write(b *strings.Builder) {
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for i := range t.Header {
		if i < len(t.Right) && t.Right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// RightFrom aligns every column from the i-th of n on to the right.
func RightFrom(i, n int) []bool {
	r := make([]bool, n)
	for j := i; j < n; j++ {
		r[j] = true
	}
	return r
}

// FmtSpread writes a figure over runs as "median (min–max)", or just the
// value when the runs agree or there was one, or "–" when not measured.
func FmtSpread(s measure.Spread, prec int, unit string) string {
	if math.IsNaN(s.Median) {
		return "–"
	}
	v := fmt.Sprintf("%.*f%s", prec, s.Median, unit)
	if s.N > 1 && fmt.Sprintf("%.*f", prec, s.Min) != fmt.Sprintf("%.*f", prec, s.Max) {
		v += fmt.Sprintf(" (%.*f–%.*f)", prec, s.Min, prec, s.Max)
	}
	return v
}

// FmtDiff writes a difference with its sign.
func FmtDiff(d float64, prec int) string {
	if math.IsNaN(d) {
		return "–"
	}
	if fmt.Sprintf("%.*f", prec, math.Abs(d)) == fmt.Sprintf("%.*f", prec, 0.0) {
		return fmt.Sprintf("%.*f", prec, 0.0)
	}
	return fmt.Sprintf("%+.*f", prec, d)
}

// Pct writes a share as a percentage.
func Pct(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// FmtRatio writes a ratio to the baseline, "–" when it cannot be computed.
func FmtRatio(q float64) string {
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", q)
}

// RatioValue is a ratio for results.json: nil when either figure is
// missing, since JSON has no NaN.
func RatioValue(q float64) *float64 {
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return nil
	}
	return &q
}

// FmtSeconds writes a duration in seconds, "–" when not measured.
func FmtSeconds(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// ThousandsRange names sorted sizes in a title: "2,000" or "10,000 to
// 50,000".
func ThousandsRange(sizes []int) string {
	switch len(sizes) {
	case 0:
		return "no"
	case 1:
		return Thousands(sizes[0])
	}
	return Thousands(sizes[0]) + " to " + Thousands(sizes[len(sizes)-1])
}

// Thousands writes 1000 as 1,000, as the reports' prose does.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
