package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// writeProvisioning is the scenarios side by side, their plots, and the
// requests per volume by verb and resource.
func (o *Overview) writeProvisioning(b *strings.Builder) {
	if len(o.Provisioning) == 0 {
		return
	}
	b.WriteString("## Provisioning: throughput, latency and API requests\n\n")
	b.WriteString("Each scenario provisions its claims at once (all created in a burst by the benchmark's own unthrottled client), with the sidecar's `ProvisioningProtection` gate on and off" + o.baselineClause() + ". Throughput is claims Bound per second from the first create to the last claim Bound; latency is per claim, from its create to Bound. Details, including how every figure is taken and what limited throughput, are in each scenario's report.\n\n")
	t := &bench.Table{Header: []string{"scenario", "configuration", "runs", "throughput (claims/s)", "latency p50", "latency p99", "sidecar requests / volume (writes)", "deletion (PVs gone / s)", "sidecar non-2xx"},
		Right: []bool{false, false, true, true, true, true, true, true, true}}
	for _, r := range o.Provisioning {
		link := fmt.Sprintf("[%s](%s.md)", r.Scenario.Name(), r.Scenario.Slug())
		for _, v := range r.Report.Variants {
			reqs := v.Spread(provisioning.SidecarPerVolume(provisioning.Provisioning.Get, provisioning.AllRequests))
			writes := v.Spread(provisioning.SidecarPerVolume(provisioning.Provisioning.Get, provisioning.Writes))
			del := "–"
			if r.Report.Deletes() {
				del = bench.FmtSpread(v.Spread(func(x *provisioning.RunResult) float64 { return x.DeleteThroughput() }), 1, "")
			}
			errs := 0
			for _, run := range v.Runs {
				errs += run.SidecarErrors()
			}
			t.Add(link, v.Variant.Name, fmt.Sprint(len(v.Runs)),
				bench.FmtSpread(v.Spread(func(x *provisioning.RunResult) float64 { return x.Throughput() }), 1, ""),
				bench.FmtSpread(v.Spread(func(x *provisioning.RunResult) float64 { return x.Latency.P50 }), 2, " s"),
				bench.FmtSpread(v.Spread(func(x *provisioning.RunResult) float64 { return x.Latency.P99 }), 2, " s"),
				fmt.Sprintf("%s (%s)", bench.FmtSpread(reqs, 2, ""), bench.FmtSpread(writes, 2, "")),
				del, fmt.Sprint(errs))
			link = ""
		}
	}
	t.Write(b)
	o.writeBaselineMatrix(b)
	for _, p := range o.Plots {
		if strings.HasPrefix(p.File, "throughput") || p.File == "latency.png" {
			fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.File)
		}
	}
	b.WriteString("Latency distributions, one line per configuration (its median run):\n\n")
	for _, p := range o.Plots {
		if strings.HasPrefix(p.File, "latency-") {
			fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.File)
		}
	}
	o.writeRequestMatrix(b, "provisioning", provisioning.Provisioning.Get, o.Provisioning)
	if o.hasPlot("requests.png") {
		b.WriteString("![Sidecar requests per volume while provisioning](requests.png)\n\n")
	}
	var withDeletion []*provisioning.ScenarioResult
	for _, r := range o.Provisioning {
		if r.Report.Deletes() {
			withDeletion = append(withDeletion, r)
		}
	}
	o.writeRequestMatrix(b, "deletion", provisioning.Deletion.Get, withDeletion)
}

// writeRequestMatrix is the sidecar's requests per volume in a phase by
// verb and resource (from the audit log), a column per scenario and
// variant.
func (o *Overview) writeRequestMatrix(b *strings.Builder, phaseName string, phase func(*provisioning.RunResult) provisioning.PhaseRequests, results []*provisioning.ScenarioResult) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(b, "### Sidecar API requests per volume, %s (audit log)\n\n", phaseName)
	header := []string{"verb", "resource"}
	var cols []*provisioning.VariantResult
	for _, r := range results {
		for _, v := range r.Report.Variants {
			header = append(header, fmt.Sprintf("%s, %s", r.Scenario.Label(), v.Variant.Name))
			cols = append(cols, v)
		}
	}
	var keys []string
	for _, r := range results {
		for _, k := range r.Report.RequestKeys(phase) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	t := &bench.Table{Header: header, Right: bench.RightFrom(2, len(header))}
	for _, k := range keys {
		verb, res := measure.SplitKey(k)
		cells := []string{verb, "`" + res + "`"}
		for _, v := range cols {
			s := v.RequestsPerVolume(phase, k)
			if math.IsNaN(s.Median) {
				cells = append(cells, "–")
			} else {
				cells = append(cells, bench.FmtSpread(s, 2, ""))
			}
		}
		t.Add(cells...)
	}
	cells := []string{"**all**", ""}
	for _, v := range cols {
		cells = append(cells, bench.FmtSpread(v.Spread(provisioning.SidecarPerVolume(phase, provisioning.AllRequests)), 2, ""))
	}
	t.Add(cells...)
	t.Write(b)
}

// baselineClause names the baseline among the provisioning configurations,
// "" without one.
func (o *Overview) baselineClause() string {
	for _, r := range o.Provisioning {
		if b := r.Report.Baseline(); b != nil {
			return ", and the baseline (upstream `" + b.Variant.Binary + "` under upstream's RBAC)"
		}
	}
	return ""
}
