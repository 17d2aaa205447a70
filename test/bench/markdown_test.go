package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

func TestFmtSpread(t *testing.T) {
	for _, tc := range []struct {
		s    measure.Spread
		want string
	}{
		{measure.Spread{Median: 1.234, Min: 1, Max: 2, N: 3}, "1.23 s (1.00–2.00)"},
		{measure.Spread{Median: 1.234, Min: 1.231, Max: 1.234, N: 3}, "1.23 s"},
		{measure.Spread{Median: 5, Min: 1, Max: 9, N: 1}, "5.00 s"},
		{measure.Spread{Median: math.NaN()}, "–"},
	} {
		if got := FmtSpread(tc.s, 2, " s"); got != tc.want {
			t.Errorf("FmtSpread(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestTableAlignsNumbersRight(t *testing.T) {
	tb := Table{Header: []string{"variant", "peak RSS"}, Right: RightFrom(1, 2)}
	tb.Add("gate on", "90.0 MiB")
	var b strings.Builder
	tb.Write(&b)
	if want := "| variant | peak RSS |\n|---|---:|\n| gate on | 90.0 MiB |\n\n"; b.String() != want {
		t.Errorf("table %q, want %q", b.String(), want)
	}
}

func TestNumbersInProse(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 50000: "50,000", 1234567: "1,234,567"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for _, tc := range []struct {
		sizes []int
		want  string
	}{{nil, "no"}, {[]int{2000}, "2,000"}, {[]int{10000, 20000, 50000}, "10,000 to 50,000"}} {
		if got := ThousandsRange(tc.sizes); got != tc.want {
			t.Errorf("ThousandsRange(%v) = %q, want %q", tc.sizes, got, tc.want)
		}
	}
	if got := FmtDiff(-0.001, 2); got != "0.00" {
		t.Errorf("a difference that rounds to zero: %q", got)
	}
	if got, q := FmtRatio(math.NaN()), RatioValue(math.Inf(1)); got != "–" || q != nil {
		t.Errorf("a ratio not measured: %q, %v", got, q)
	}
}
