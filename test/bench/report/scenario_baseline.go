package report

import (
	"fmt"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// baselineHeadline is the summary's line on how our variants compare with
// the baseline, "" without one.
func (r scenario) baselineHeadline() string {
	base := r.Baseline()
	if base == nil {
		return ""
	}
	figs := []struct {
		name string
		f    func(*provisioning.RunResult) float64
		del  bool
	}{
		{"throughput", provisioning.FigThroughput, false},
		{"latency p50", provisioning.FigLatencyP50, false},
		{"latency p99", provisioning.FigLatencyP99, false},
		{"sidecar requests per volume provisioning", provisioning.FigProvRequests, false},
		{"per deleted volume", provisioning.FigDelRequests, true},
	}
	var parts []string
	for _, fg := range figs {
		if fg.del && !r.Deletes() {
			continue
		}
		var cells []string
		for _, v := range r.Ours() {
			cells = append(cells, fmt.Sprintf("%s %s", v.Variant.Name, bench.FmtRatio(r.VsBaseline(v, fg.f))))
		}
		parts = append(parts, fg.name+": "+strings.Join(cells, ", "))
	}
	return fmt.Sprintf("**Against the baseline** (%s; ours / baseline, ratio of the medians): %s.\n\n", base.Variant.Upstream(), strings.Join(parts, "; "))
}
