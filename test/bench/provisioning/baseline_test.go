package provisioning_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

func TestBaselineRatiosAreRatiosOfMedians(t *testing.T) {
	r := benchtest.Scenario(100, provisioning.TunedLimits, true, benchtest.WithBaseline, map[string]benchtest.Figures{
		"gate on":          {Throughput: []float64{40, 45, 50}, P50: 1.2, P99: 2.4, ProvRequests: 5, DelRequests: 2.5},
		"gate off":         {Throughput: []float64{50, 60, 55}, P50: 1.0, P99: 2.0, ProvRequests: 3, DelRequests: 2.5},
		bench.BaselineName: {Throughput: []float64{49, 50, 60}, P50: 1.0, P99: 3.0, ProvRequests: 2, DelRequests: 2},
	}).Report
	got := r.BaselineRatios()
	if len(got) != 2 || got[0].Variant != "gate on" || got[1].Variant != "gate off" {
		t.Fatalf("ratios for %v, want gate on and gate off", got)
	}
	on, off := got[0], got[1]
	benchtest.Approx(t, "gate on throughput", on.Throughput, 45.0/50)
	benchtest.Approx(t, "gate off throughput", off.Throughput, 55.0/50)
	benchtest.Approx(t, "gate on p50", on.LatencyP50, 1.2)
	benchtest.Approx(t, "gate on p99", on.LatencyP99, 0.8)
	benchtest.Approx(t, "gate on requests per volume", on.RequestsPerVolume, 2.5)
	benchtest.Approx(t, "gate off requests per deleted volume", off.RequestsPerDeletedVolume, 1.25)

	// The baseline is not one of the pair: gate on against gate off is
	// still the ratio the report leads with.
	if q := r.ThroughputRatio(); math.Abs(q-45.0/55) > 1e-9 {
		t.Errorf("gate on / gate off = %.4f, want %.4f", q, 45.0/55)
	}

	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Title      string                    `json:"title"`
		VsBaseline []provisioning.VsBaseline `json:"vsBaseline"`
		Variants   []any                     `json:"variants"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Title != r.Title || len(back.Variants) != 3 || len(back.VsBaseline) != 2 {
		t.Errorf("results.json lost figures: %s", data)
	}
	benchtest.Approx(t, "results.json gate on throughput", back.VsBaseline[0].Throughput, 0.9)
}

func TestNoBaselineNoRatios(t *testing.T) {
	r := benchtest.GateScenario(100, []float64{45}, []float64{50}, 0).Report
	if got := r.BaselineRatios(); got != nil {
		t.Errorf("ratios without a baseline: %v", got)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "vsBaseline") {
		t.Errorf("results.json has vsBaseline without a baseline: %s", data)
	}
}

func TestRatioWithoutAFigureIsLeftOut(t *testing.T) {
	// Provisioning only: no deletion ratio, rather than a NaN that JSON
	// cannot hold.
	r := benchtest.Scenario(100, provisioning.DefaultLimits, false, benchtest.WithBaseline, map[string]benchtest.Figures{
		"gate on":          {Throughput: []float64{2}, P50: 10, P99: 20, ProvRequests: 4},
		"gate off":         {Throughput: []float64{4}, P50: 5, P99: 10, ProvRequests: 1},
		bench.BaselineName: {Throughput: []float64{4}, P50: 5, P99: 10, ProvRequests: 1},
	}).Report
	for _, q := range r.BaselineRatios() {
		if q.RequestsPerDeletedVolume != nil {
			t.Errorf("%s: deletion ratio %v without deletion", q.Variant, *q.RequestsPerDeletedVolume)
		}
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("results.json: %v", err)
	}
}

// A scenario's problems are runs that did not measure everything; the
// sidecar's non-2xx answers are counted as errors of the run but are not
// problems.
func TestProblemsAndErrorsOfARun(t *testing.T) {
	r := benchtest.GateScenario(100, []float64{45}, []float64{50}, 2).Report
	if r.HasProblems() {
		t.Error("HasProblems for runs whose only flaw is the sidecar's 404s")
	}
	if failures, sidecarErrors := r.Variants[0].Runs[0].ErrorsPerRun(); failures != 0 || sidecarErrors != 2 {
		t.Errorf("errors per run %d, %d; want 0 failures and 2 non-2xx answers", failures, sidecarErrors)
	}
	r.Variants[1].Runs[0].Bound = 99
	if !r.HasProblems() {
		t.Error("HasProblems = false with a claim not Bound")
	}
}
