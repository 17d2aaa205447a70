package bench

import (
	"encoding/json"
	"fmt"
	"strings"
)

// baselineVariant is the baseline of any benchmark of the overview, nil
// when none ran.
func (o *Overview) baselineVariant() *Variant {
	for _, r := range o.Provisioning {
		if b := r.Report.baseline(); b != nil {
			return &b.Variant
		}
	}
	if o.Memory != nil {
		return o.Memory.baselineVariant()
	}
	return nil
}

// MarshalJSON adds the goals, as the report judged them, to results.json.
func (o *Overview) MarshalJSON() ([]byte, error) {
	type plain Overview
	return json.Marshal(struct {
		*plain
		Goals []Goal `json:"goals"`
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
	fmt.Fprintf(b, "Ours / baseline, the ratio of the medians over the runs; the baseline is %s. Above 1 is more claims/s (better), more seconds or more requests (worse).\n\n", base.upstream())
	t := &table{
		header: []string{"scenario", "configuration", "throughput", "latency p50", "latency p99", "sidecar requests / volume, provisioning", "sidecar requests / deleted volume"},
		right:  []bool{false, false, true, true, true, true, true},
	}
	for _, r := range o.Provisioning {
		rep := r.Report
		if rep.baseline() == nil {
			continue
		}
		link := fmt.Sprintf("[%s](%s.md)", r.Scenario.Name(), r.Scenario.Slug())
		for _, v := range rep.ours() {
			del := "–"
			if rep.deletes() {
				del = fmtRatio(rep.vsBaseline(v, figDelRequests))
			}
			t.add(link, v.Variant.Name,
				fmtRatio(rep.vsBaseline(v, figThroughput)),
				fmtRatio(rep.vsBaseline(v, figLatencyP50)),
				fmtRatio(rep.vsBaseline(v, figLatencyP99)),
				fmtRatio(rep.vsBaseline(v, figProvRequests)),
				del)
			link = ""
		}
	}
	t.write(b)
}
