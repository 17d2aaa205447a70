package memory

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestLeastSquaresLine(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		xs, ys                []float64
		slope, intercept, rsq float64
	}{
		{"points on a line", []float64{10000, 25000, 50000}, []float64{110, 125, 150}, 0.001, 100, 1},
		// Residuals -0.5, +1, -0.5 against a spread of 2 around the mean.
		{"points off the line", []float64{1, 2, 3}, []float64{1, 3, 2}, 0.5, 1, 0.25},
		{"two points: no R²", []float64{1, 2}, []float64{1, 3}, 2, -1, math.NaN()},
		{"a flat line: no R²", []float64{1, 2, 3}, []float64{5, 5, 5}, 0, 5, math.NaN()},
		{"one size: no line", []float64{2, 2}, []float64{1, 3}, math.NaN(), math.NaN(), math.NaN()},
		{"one point: no line", []float64{2}, []float64{1}, math.NaN(), math.NaN(), math.NaN()},
	} {
		slope, intercept, rsq := fitLine(tc.xs, tc.ys)
		for _, f := range []struct {
			what      string
			got, want float64
		}{{"slope", slope, tc.slope}, {"intercept", intercept, tc.intercept}, {"R²", rsq, tc.rsq}} {
			if !approx(f.got, f.want) {
				t.Errorf("%s: %s = %v, want %v", tc.name, f.what, f.got, f.want)
			}
		}
	}
}

func approx(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// The line goes through each size's median, so one disturbed run does not
// tilt it; its slope is in KiB per pair, its residuals in MiB.
func TestFitOfAVariantGoesThroughItsMedians(t *testing.T) {
	r := &Report{Setup: Setup{Objects: 30000}}
	for _, p := range []struct {
		pairs int
		peaks []float64
	}{{10000, []float64{100, 101, 300}}, {20000, []float64{110, 111, 109}}, {30000, []float64{121}}} {
		for _, mib := range p.peaks {
			r.Runs = append(r.Runs, &SidecarRun{Variant: "gate on", Pairs: p.pairs, End: peakOf(mib)})
		}
	}
	f, ok := r.FitOf("gate on")
	if !ok {
		t.Fatal("no fit over three sizes")
	}
	// Medians 101, 110, 121: slope 10 MiB per 10,000 pairs, residuals
	// +0.33, −0.67, +0.33.
	if kib := f.KiBPerPair(); !approx(kib, 10*1024/10000.0) {
		t.Errorf("slope %v KiB per pair, want 1.024", kib)
	}
	if got := f.MaxResidual(); math.Abs(got-2.0/3) > 1e-9 {
		t.Errorf("largest residual %v MiB, want 0.67", got)
	}
	if f.R2 >= 1 || f.R2 < 0.99 {
		t.Errorf("R² %v, want just under 1", f.R2)
	}
	if _, ok := r.FitOf("gate off"); ok {
		t.Error("a fit of a variant that never ran")
	}
}

// JSON has no NaN: what a fit of two sizes cannot say is left out.
func TestFitJSONLeavesOutWhatIsUnknown(t *testing.T) {
	r := &Report{Runs: []*SidecarRun{
		{Variant: "gate on", Pairs: 1000, End: peakOf(50)},
		{Variant: "gate on", Pairs: 2000, End: peakOf(52)},
	}}
	f, ok := r.FitOf("gate on")
	if !ok {
		t.Fatal("no fit over two sizes")
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, `"slopeKiBPerPair":2.048`) || !strings.Contains(s, `"interceptMiB":48`) || strings.Contains(s, `"r2"`) || !strings.Contains(s, `"pairs":1000,"peakRSSMiB":50,"residualMiB":0`) {
		t.Errorf("fit JSON %s", s)
	}
}
