package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// baselineVariant is the baseline of any benchmark of the overview, nil
// when none ran.
func (o *Overview) baselineVariant() *bench.Variant {
	for _, r := range o.Provisioning {
		if b := r.Report.Baseline(); b != nil {
			return &b.Variant
		}
	}
	if o.Memory != nil {
		return o.Memory.BaselineVariant()
	}
	return nil
}

// MarshalJSON adds the goals, as the report judged them, to results.json.
func (o *Overview) MarshalJSON() ([]byte, error) {
	type plain Overview
	return json.Marshal(struct {
		*plain
		Goals []bench.Goal `json:"goals"`
	}{(*plain)(o), o.Goals()})
}

// writeBaselineMatrix is every scenario's figures of ours as ratios to the
// baseline's medians, when a baseline ran.
func (o *Overview) writeBaselineMatrix(b *strings.Builder) {
	base := o.baselineVariant()
	if base == nil {
		return
	}
	fmt.Fprintf(b, "### Against the baseline\n\n")
	fmt.Fprintf(b, "Ours / baseline, the ratio of the medians over the runs; the baseline is %s. Above 1 is more claims/s (better), more seconds or more requests (worse).\n\n", base.Upstream())
	t := &bench.Table{
		Header: []string{"scenario", "configuration", "throughput", "latency p50", "latency p99", "sidecar requests / volume, provisioning", "sidecar requests / deleted volume"},
		Right:  []bool{false, false, true, true, true, true, true},
	}
	for _, r := range o.Provisioning {
		rep := r.Report
		if rep.Baseline() == nil {
			continue
		}
		link := fmt.Sprintf("[%s](%s.md)", r.Scenario.Name(), r.Scenario.Slug())
		for _, v := range rep.Ours() {
			del := "–"
			if rep.Deletes() {
				del = bench.FmtRatio(rep.VsBaseline(v, provisioning.FigDelRequests))
			}
			t.Add(link, v.Variant.Name,
				bench.FmtRatio(rep.VsBaseline(v, provisioning.FigThroughput)),
				bench.FmtRatio(rep.VsBaseline(v, provisioning.FigLatencyP50)),
				bench.FmtRatio(rep.VsBaseline(v, provisioning.FigLatencyP99)),
				bench.FmtRatio(rep.VsBaseline(v, provisioning.FigProvRequests)),
				del)
			link = ""
		}
	}
	t.Write(b)
}
