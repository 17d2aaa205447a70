package provisioning

import (
	"encoding/json"
	"math"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// The figures reported against the baseline.
var (
	FigThroughput   = func(x *RunResult) float64 { return x.Throughput() }
	FigLatencyP50   = func(x *RunResult) float64 { return x.Latency.P50 }
	FigLatencyP99   = func(x *RunResult) float64 { return x.Latency.P99 }
	FigProvRequests = SidecarPerVolume(Provisioning.Get, AllRequests)
	FigDelRequests  = SidecarPerVolume(Deletion.Get, AllRequests)
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

// VsBaseline is a figure of v over the baseline's, NaN without a baseline
// or a figure.
func (r *Report) VsBaseline(v *VariantResult, f func(*RunResult) float64) float64 {
	base := r.Baseline()
	if base == nil || v == nil {
		return math.NaN()
	}
	return measure.Ratio(v.Spread(f), base.Spread(f))
}

// BaselineRatios are every variant of ours against the baseline; nil when
// no baseline ran.
func (r *Report) BaselineRatios() []VsBaseline {
	if r.Baseline() == nil {
		return nil
	}
	var out []VsBaseline
	for _, v := range r.Ours() {
		q := VsBaseline{
			Variant:           v.Variant.Name,
			Throughput:        bench.RatioValue(r.VsBaseline(v, FigThroughput)),
			LatencyP50:        bench.RatioValue(r.VsBaseline(v, FigLatencyP50)),
			LatencyP99:        bench.RatioValue(r.VsBaseline(v, FigLatencyP99)),
			RequestsPerVolume: bench.RatioValue(r.VsBaseline(v, FigProvRequests)),
		}
		if r.Deletes() {
			q.RequestsPerDeletedVolume = bench.RatioValue(r.VsBaseline(v, FigDelRequests))
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
