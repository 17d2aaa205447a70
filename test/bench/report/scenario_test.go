package report_test

import (
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
	"github.com/csi-protect/external-provisioner/test/bench/report"
)

func TestScenarioReportAgainstTheBaseline(t *testing.T) {
	r := benchtest.Scenario(100, provisioning.TunedLimits, true, benchtest.WithBaseline, map[string]benchtest.Figures{
		"gate on":          {Throughput: []float64{40, 45, 50}, P50: 1.2, P99: 2.4, ProvRequests: 5, DelRequests: 2.5},
		"gate off":         {Throughput: []float64{50, 60, 55}, P50: 1.0, P99: 2.0, ProvRequests: 3, DelRequests: 2.5},
		bench.BaselineName: {Throughput: []float64{49, 50, 60}, P50: 1.0, P99: 3.0, ProvRequests: 2, DelRequests: 2},
	}).Report
	benchtest.MustContain(t, "report", report.Provisioning(r),
		"| figure | gate on | gate off | baseline | gate on / gate off | gate on / baseline | gate off / baseline |",
		"| **throughput (claims Bound / s)** | 45.0 (40.0–50.0) | 55.0 (50.0–60.0) | 50.0 (49.0–60.0) | 0.82 | 0.90 | 1.10 |",
		"**Against the baseline** (upstream `/opt/upstream/csi-provisioner-v5.1.0` (`--version`: csi-provisioner-v5.1.0 unknown)",
		"throughput: gate on 0.90×, gate off 1.10×",
		"but baseline under `test/e2e/testdata/rbac-upstream-v5.1.0.yaml`",
	)
}

func TestScenarioReportWithoutBaseline(t *testing.T) {
	r := benchtest.GateScenario(100, []float64{45}, []float64{50}, 3).Report
	md := report.Provisioning(r)
	if strings.Contains(md, "baseline") {
		t.Errorf("report mentions a baseline that did not run:\n%s", md)
	}
	benchtest.MustContain(t, "report", md,
		"# Provisioning protection benchmark: 100 claims, 200 QPS, 400 burst, 100 workers\n",
		"## Results\n", "## Sidecar requests per volume, provisioning\n", "## Sidecar requests per volume, deletion\n",
		"## Extra writes\n", "## Errors\n", "## What limited throughput\n", "## Runs\n", "## Setup\n",
		"| deletion | `delete persistentvolumes` | 404 | 3 | 3 |",
	)
}
