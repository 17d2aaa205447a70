package benchtest

import (
	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// BaselineScenarios are every kind of scenario the goals against the
// baseline look at, each with the baseline.
func BaselineScenarios() []*provisioning.ScenarioResult {
	return []*provisioning.ScenarioResult{
		Scenario(100, provisioning.TunedLimits, true, WithBaseline, map[string]Figures{
			"gate on":          {Throughput: []float64{50, 52}, P50: 1, P99: 2, ProvRequests: 5, DelRequests: 2.4},
			"gate off":         {Throughput: []float64{60, 62}, P50: 1, P99: 2, ProvRequests: 3, DelRequests: 2.6},
			bench.BaselineName: {Throughput: []float64{50, 50}, P50: 1, P99: 2, ProvRequests: 3, DelRequests: 2.5},
		}),
		Scenario(1000, provisioning.DefaultLimits, false, WithBaseline, map[string]Figures{
			"gate on":          {Throughput: []float64{4.7}, P50: 10.9, P99: 23},
			"gate off":         {Throughput: []float64{5}, P50: 10, P99: 20},
			bench.BaselineName: {Throughput: []float64{5}, P50: 10, P99: 20},
		}),
	}
}

// BaselineMemory is a memory report with the baseline, whose peaks are
// above ours.
func BaselineMemory() *memory.Report {
	return MemoryReport(map[string][]float64{"gate on": {150, 160, 155}, "gate off": {140}, bench.BaselineName: {200, 210}}, Baseline)
}
