package memory

import (
	"encoding/json"
	"math"
)

// Fit is a least-squares line of a variant's peak RSS over the number of
// pairs cached, through the median of each size: medians, so that one
// disturbed run does not tilt it, as every other figure is a median.
type Fit struct {
	Variant string     `json:"variant"`
	Points  []FitPoint `json:"points"`
	// Slope is in MiB per pair and Intercept in MiB (the line at no pair:
	// the sidecar's own memory), NaN with fewer than two sizes. R2 is the
	// coefficient of determination, how much of the spread of the
	// medians the line explains (1 is a straight line), NaN with fewer
	// than three sizes: two points are on a line whatever they are.
	Slope     float64 `json:"-"`
	Intercept float64 `json:"-"`
	R2        float64 `json:"-"`
}

// FitPoint is one size's median and its distance from the line.
type FitPoint struct {
	Pairs      int     `json:"pairs"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
	// Residual is how far the median is above the line, in MiB.
	Residual float64 `json:"-"`
}

// KiBPerPair is the slope in KiB per cached pair (a claim and its PV).
func (f Fit) KiBPerPair() float64 { return f.Slope * 1024 }

// MaxResidual is the largest distance of a median from the line, in MiB,
// NaN without a line.
func (f Fit) MaxResidual() float64 {
	worst := math.NaN()
	for _, p := range f.Points {
		if !math.IsNaN(p.Residual) && (math.IsNaN(worst) || math.Abs(p.Residual) > worst) {
			worst = math.Abs(p.Residual)
		}
	}
	return worst
}

// Fits are the lines of every variant with runs at two sizes or more.
func (r *Report) Fits() []Fit {
	var fits []Fit
	for _, v := range r.Variants {
		if f, ok := r.FitOf(v.Name); ok {
			fits = append(fits, f)
		}
	}
	return fits
}

// FitOf is a variant's line; ok is false when it has a measured run at
// fewer than two sizes.
func (r *Report) FitOf(variant string) (Fit, bool) {
	f := Fit{Variant: variant}
	var xs, ys []float64
	for _, pairs := range r.Sizes() {
		med := r.PeakRSSAt(variant, pairs).Median
		if math.IsNaN(med) {
			continue
		}
		f.Points = append(f.Points, FitPoint{Pairs: pairs, PeakRSSMiB: med})
		xs, ys = append(xs, float64(pairs)), append(ys, med)
	}
	if len(f.Points) < 2 {
		return f, false
	}
	f.Slope, f.Intercept, f.R2 = fitLine(xs, ys)
	for i := range f.Points {
		f.Points[i].Residual = ys[i] - (f.Intercept + f.Slope*xs[i])
	}
	return f, true
}

// fitLine is the least-squares line y = intercept + slope·x and its R²:
// NaN for all three with fewer than two distinct x, NaN for R² with fewer
// than three points or when every y is the same.
func fitLine(xs, ys []float64) (slope, intercept, r2 float64) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slope = sxy / sxx
	intercept = my - slope*mx
	r2 = math.NaN()
	if len(xs) >= 3 && syy > 0 {
		var res float64
		for i := range xs {
			e := ys[i] - (intercept + slope*xs[i])
			res += e * e
		}
		r2 = 1 - res/syy
	}
	return slope, intercept, r2
}

// jsonNumber is a figure for JSON, which has no NaN: nil when not known.
func jsonNumber(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// MarshalJSON writes the line in KiB per pair, and leaves out what could
// not be computed.
func (f Fit) MarshalJSON() ([]byte, error) {
	type point struct {
		FitPoint
		ResidualMiB *float64 `json:"residualMiB,omitempty"`
	}
	points := make([]point, len(f.Points))
	for i, p := range f.Points {
		points[i] = point{p, jsonNumber(p.Residual)}
	}
	return json.Marshal(struct {
		Variant         string   `json:"variant"`
		Points          []point  `json:"points"`
		SlopeKiBPerPair *float64 `json:"slopeKiBPerPair,omitempty"`
		InterceptMiB    *float64 `json:"interceptMiB,omitempty"`
		R2              *float64 `json:"r2,omitempty"`
	}{f.Variant, points, jsonNumber(f.KiBPerPair()), jsonNumber(f.Intercept), jsonNumber(f.R2)})
}
