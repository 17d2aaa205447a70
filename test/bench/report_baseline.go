package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// ours are the variants of this repository's sidecar, in their order.
func (r *Report) ours() []*VariantResult {
	var out []*VariantResult
	for _, v := range r.Variants {
		if !v.Variant.IsBaseline() {
			out = append(out, v)
		}
	}
	return out
}

// baseline is the upstream sidecar's variant, nil when none ran.
func (r *Report) baseline() *VariantResult {
	for _, v := range r.Variants {
		if v.Variant.IsBaseline() {
			return v
		}
	}
	return nil
}

// The figures reported against the baseline.
var (
	figThroughput   = func(x *RunResult) float64 { return x.Throughput() }
	figLatencyP50   = func(x *RunResult) float64 { return x.Latency.P50 }
	figLatencyP99   = func(x *RunResult) float64 { return x.Latency.P99 }
	figProvRequests = perVolume(func(x *RunResult) PhaseRequests { return x.Provisioning }, 0)
	figDelRequests  = perVolume(func(x *RunResult) PhaseRequests { return x.Deletion }, 0)
)

// VsBaseline is one of our variants' figures as ratios to the baseline's,
// each the ratio of the two medians over the runs: above 1 means more
// (claims/s, seconds, requests) than upstream. A ratio that cannot be
// computed (a figure not measured) is left out.
type VsBaseline struct {
	Variant    string   `json:"variant"`
	Throughput *float64 `json:"throughput,omitempty"`
	LatencyP50 *float64 `json:"latencyP50,omitempty"`
	LatencyP99 *float64 `json:"latencyP99,omitempty"`
	// RequestsPerVolume are the sidecar's API requests per volume while
	// provisioning, and per deleted volume while deleting.
	RequestsPerVolume        *float64 `json:"requestsPerVolume,omitempty"`
	RequestsPerDeletedVolume *float64 `json:"requestsPerDeletedVolume,omitempty"`
}

// vsBaseline is a figure of v over the baseline's, NaN without a baseline
// or a figure.
func (r *Report) vsBaseline(v *VariantResult, f func(*RunResult) float64) float64 {
	base := r.baseline()
	if base == nil || v == nil {
		return math.NaN()
	}
	return ratio(v.spread(f), base.spread(f))
}

// BaselineRatios are every variant of ours against the baseline; nil when
// no baseline ran.
func (r *Report) BaselineRatios() []VsBaseline {
	if r.baseline() == nil {
		return nil
	}
	var out []VsBaseline
	for _, v := range r.ours() {
		q := VsBaseline{
			Variant:           v.Variant.Name,
			Throughput:        ratioValue(r.vsBaseline(v, figThroughput)),
			LatencyP50:        ratioValue(r.vsBaseline(v, figLatencyP50)),
			LatencyP99:        ratioValue(r.vsBaseline(v, figLatencyP99)),
			RequestsPerVolume: ratioValue(r.vsBaseline(v, figProvRequests)),
		}
		if r.deletes() {
			q.RequestsPerDeletedVolume = ratioValue(r.vsBaseline(v, figDelRequests))
		}
		out = append(out, q)
	}
	return out
}

// MarshalJSON adds the ratios to the baseline to the report's figures.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		*plain
		VsBaseline []VsBaseline `json:"vsBaseline,omitempty"`
	}{(*plain)(r), r.BaselineRatios()})
}

// baselineHeadline is the summary's line on how our variants compare with
// the baseline, "" without one.
func (r *Report) baselineHeadline() string {
	base := r.baseline()
	if base == nil {
		return ""
	}
	figs := []struct {
		name string
		f    func(*RunResult) float64
		del  bool
	}{
		{"throughput", figThroughput, false},
		{"latency p50", figLatencyP50, false},
		{"latency p99", figLatencyP99, false},
		{"sidecar requests per volume provisioning", figProvRequests, false},
		{"per deleted volume", figDelRequests, true},
	}
	var parts []string
	for _, fg := range figs {
		if fg.del && !r.deletes() {
			continue
		}
		var cells []string
		for _, v := range r.ours() {
			cells = append(cells, fmt.Sprintf("%s %s", v.Variant.Name, fmtRatio(r.vsBaseline(v, fg.f))))
		}
		parts = append(parts, fg.name+": "+strings.Join(cells, ", "))
	}
	return fmt.Sprintf("**Against the baseline** (%s; ours / baseline, ratio of the medians): %s.\n\n", base.Variant.upstream(), strings.Join(parts, "; "))
}
