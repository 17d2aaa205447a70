package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
	"github.com/csi-protect/external-provisioner/test/bench/report"
)

func TestGoalsAgainstTheBaseline(t *testing.T) {
	ov := &report.Overview{Provisioning: benchtest.BaselineScenarios(), Memory: benchtest.BaselineMemory()}
	md := ov.Markdown()
	benchtest.MustContain(t, "report", md,
		"| throughput gate on ≥ 1.0 × baseline, 100 claims, 200 QPS, 400 burst, 100 workers | 1.02 (51.0 claims/s vs 50.0 claims/s) | yes |",
		"| sidecar API requests per deleted volume, gate on ≤ baseline, 100 claims, 200 QPS, 400 burst, 100 workers | 0.96 (2.40 vs 2.50) | yes |",
		"| sidecar API requests per deleted volume, gate off ≤ baseline, 100 claims, 200 QPS, 400 burst, 100 workers | 1.04 (2.60 vs 2.50) | **no** |",
		"| throughput gate on ≥ 0.95 × baseline, 1,000 claims, default client limits (5 QPS, 10 burst) | 0.94 (4.7 claims/s vs 5.0 claims/s) | **no** |",
		"| latency p50 (claim created → Bound) gate on ≤ 1.1 × baseline, 1,000 claims, default client limits (5 QPS, 10 burst) | 1.09 (10.90 s vs 10.00 s) | yes |",
		"| latency p99 (claim created → Bound) gate on ≤ 1.1 × baseline, 1,000 claims, default client limits (5 QPS, 10 burst) | 1.15 (23.00 s vs 20.00 s) | **no** |",
		"| peak RSS of gate on (shipped settings) ≤ 0.8 × baseline, 2,000 claims and PVs cached | 0.76 (155.0 MiB vs 205.0 MiB) | yes |",
		// The budget of 150 MiB judges ours only, not the baseline's 210.
		"| sidecar peak RSS with 2,000 claims and PVs cached < 150 MiB | worst run 160.0 MiB (gate on 155.0 MiB (150.0–160.0); gate off 140.0 MiB) | **no** |",
		// Gate on against gate off is still judged.
		"| throughput gate on ≥ 0.9 × gate off, 100 claims, 200 QPS, 400 burst, 100 workers | 0.84",
		"### Against the baseline",
		"| [1,000 claims, default client limits (5 QPS, 10 burst)](provisioning-1000-default.md) | gate on | 0.94× | 1.09× | 1.15× | – | – |",
		"- Baseline: upstream `/opt/upstream/csi-provisioner-v5.1.0`",
	)
	n := 0
	for _, g := range ov.Goals() {
		if strings.Contains(g.Goal, "baseline") {
			n++
			if g.Value == nil || g.Target == 0 {
				t.Errorf("goal %q has no value or target", g.Goal)
			}
		}
	}
	// tuned: throughput + 2 deletion; default: throughput, p50, p99;
	// memory: peak RSS at the smallest and at the largest size (the
	// first claim's goal only when measured, which these runs were not).
	if n != 8 {
		t.Errorf("%d goals against the baseline, want 8", n)
	}
	data, err := json.Marshal(ov)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Goals []bench.Goal `json:"goals"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Goals) != len(ov.Goals()) {
		t.Errorf("results.json has %d goals, want %d", len(back.Goals), len(ov.Goals()))
	}
}

func TestGoalsWithoutBaselineAreTheGateGoalsOnly(t *testing.T) {
	ov := &report.Overview{
		Provisioning: []*provisioning.ScenarioResult{benchtest.GateScenario(100, []float64{45}, []float64{50}, 0)},
		Memory:       benchtest.MemoryReport(map[string][]float64{"gate on": {120}, "gate off": {110}}),
	}
	for _, g := range ov.Goals() {
		if strings.Contains(g.Goal, "baseline") {
			t.Errorf("goal against a baseline that did not run: %q", g.Goal)
		}
	}
	if md := ov.Markdown(); strings.Contains(md, "Against the baseline") || strings.Contains(md, "Baseline:") {
		t.Errorf("report has baseline sections without a baseline:\n%s", md)
	}
}

func TestBaselineGoalNotMeasuredIsNotMet(t *testing.T) {
	ov := &report.Overview{Provisioning: []*provisioning.ScenarioResult{benchtest.Scenario(100, provisioning.DefaultLimits, false, benchtest.WithBaseline, map[string]benchtest.Figures{
		"gate on":          {Throughput: []float64{4}, P50: 1, P99: 2},
		"gate off":         {Throughput: []float64{4}, P50: 1, P99: 2},
		bench.BaselineName: {}, // no run measured anything
	})}}
	for _, g := range ov.Goals() {
		if strings.Contains(g.Goal, "baseline") && (g.Met || g.Measured != "not measured" || g.Value != nil) {
			t.Errorf("goal %q without baseline figures: %+v", g.Goal, g)
		}
	}
	if _, err := json.Marshal(ov); err != nil {
		t.Errorf("results.json: %v", err)
	}
}

func TestGoalsJudgeThroughputByTheRatioOfMedians(t *testing.T) {
	ov := &report.Overview{Provisioning: []*provisioning.ScenarioResult{
		benchtest.GateScenario(100, []float64{45, 46, 47}, []float64{50, 50, 50}, 0),
		benchtest.GateScenario(1000, []float64{40, 41, 42}, []float64{50, 50, 50}, 0),
	}}
	benchtest.MustContain(t, "report", ov.Markdown(),
		"| throughput gate on ≥ 0.9 × gate off, 100 claims, 200 QPS, 400 burst, 100 workers | 0.92 (run by run 0.92 (0.90–0.94)) | yes |",
		"| throughput gate on ≥ 0.9 × gate off, 1,000 claims, 200 QPS, 400 burst, 100 workers | 0.82 (run by run 0.82 (0.80–0.84)) | **no** |",
		"| zero errors in every provisioning run | 12 runs: 0 failed calls, unbound claims or leftover volumes; the sidecar got 0 non-2xx answers | yes |",
	)
}

func TestGoalOfZeroErrorsCountsTheSidecarsFailedRequests(t *testing.T) {
	ov := &report.Overview{Provisioning: []*provisioning.ScenarioResult{benchtest.GateScenario(100, []float64{50}, []float64{50}, 3)}}
	benchtest.MustContain(t, "report", ov.Markdown(),
		"| zero errors in every provisioning run | 2 runs: 0 failed calls, unbound claims or leftover volumes; the sidecar got 6 non-2xx answers (deletion: delete persistentvolumes 404) | **no** |")
}

func TestMemoryGoalIsJudgedByTheWorstRun(t *testing.T) {
	ov := &report.Overview{Memory: benchtest.MemoryReport(map[string][]float64{"gate on": {120, 151}, "gate off": {110}})}
	if md := ov.Markdown(); !strings.Contains(md, "< 150 MiB | worst run 151.0 MiB") || !strings.Contains(md, "| **no** |") {
		t.Errorf("memory goal row wrong:\n%s", md)
	}
}
