package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// provisioningPlots draws the provisioning scenarios side by side into dir:
// throughput, latency percentiles, sidecar requests per volume by verb and
// resource, and one latency distribution per scenario.
func provisioningPlots(results []*provisioning.ScenarioResult, dir string) ([]measure.Plot, error) {
	if len(results) == 0 {
		return nil, nil
	}
	var groups []string
	for _, r := range results {
		groups = append(groups, r.Scenario.Label())
	}
	variants := variantsOf(results)
	var plots []measure.Plot
	add := func(p measure.Plot, err error) error {
		if err == nil {
			plots = append(plots, p)
		}
		return err
	}

	var thr, lat []barSeries
	for _, v := range variants {
		thr = append(thr, barSeries{name: v.Label(), values: scenarioSpreads(results, v.Name, provisioning.FigThroughput), color: plotColor(v, 0)})
	}
	for i, q := range []struct {
		label string
		get   func(*provisioning.RunResult) float64
	}{
		{"p50", provisioning.FigLatencyP50},
		{"p99", provisioning.FigLatencyP99},
	} {
		for _, v := range variants {
			lat = append(lat, barSeries{name: v.Label() + ", " + q.label, values: scenarioSpreads(results, v.Name, q.get), color: plotColor(v, i)})
		}
	}
	p, err := groupedBars("Provisioning throughput (median of runs, bars: min–max)", "claims Bound / s", groups, thr)
	if err != nil {
		return nil, err
	}
	if err := add(savePlot(p, dir, "throughput.png", "Provisioning throughput")); err != nil {
		return nil, err
	}
	if p, err = groupedBars("Latency, claim created → Bound (median of runs, bars: min–max)", "seconds", groups, lat); err != nil {
		return nil, err
	}
	if err := add(savePlot(p, dir, "latency.png", "Latency p50 and p99")); err != nil {
		return nil, err
	}
	if p, err = requestsPlot(results, variants); err != nil {
		return nil, err
	}
	if err := add(savePlot(p, dir, "requests.png", "Sidecar requests per volume while provisioning")); err != nil {
		return nil, err
	}
	for _, r := range results {
		var series []cdfSeries
		for _, v := range r.Report.Variants {
			if run := medianRun(v); run != nil {
				series = append(series, cdfSeries{name: fmt.Sprintf("%s (run %d)", v.Variant.Label(), run.Run), sorted: run.Latencies, color: plotColor(v.Variant, 0)})
			}
		}
		if p, err = cdf("Latency distribution: "+r.Scenario.Name()+" (the median run by throughput)", "seconds from claim created to Bound", series); err != nil {
			return nil, err
		}
		if err := add(savePlot(p, dir, "latency-"+r.Scenario.Slug()+".png", "Latency distribution, "+r.Scenario.Name())); err != nil {
			return nil, err
		}
	}
	return plots, nil
}

// variantsOf are the variants of every scenario, in their order of
// appearance.
func variantsOf(results []*provisioning.ScenarioResult) []bench.Variant {
	var out []bench.Variant
	seen := map[string]bool{}
	for _, r := range results {
		for _, v := range r.Report.Variants {
			if !seen[v.Variant.Name] {
				seen[v.Variant.Name] = true
				out = append(out, v.Variant)
			}
		}
	}
	return out
}

// plotColor is the baseline's grey (shade 0 light, 1 dark) and nil, the
// palette's colour, for ours.
func plotColor(v bench.Variant, shade int) color.Color {
	if !v.IsBaseline() {
		return nil
	}
	if shade == 0 {
		return baselineColor
	}
	return baselineDarkColor
}

// scenarioSpreads is a figure of the named variant in every scenario.
func scenarioSpreads(results []*provisioning.ScenarioResult, variant string, f func(*provisioning.RunResult) float64) []measure.Spread {
	out := make([]measure.Spread, len(results))
	for i, r := range results {
		out[i] = measure.Spread{Median: math.NaN()}
		for _, v := range r.Report.Variants {
			if v.Variant.Name == variant {
				out[i] = v.Spread(f)
			}
		}
	}
	return out
}

// medianRun is the variant's run whose throughput is the median (the lower
// middle one for an even count), so that its latencies are typical.
func medianRun(v *provisioning.VariantResult) *provisioning.RunResult {
	runs := slices.Clone(v.Runs)
	runs = slices.DeleteFunc(runs, func(r *provisioning.RunResult) bool { return len(r.Latencies) == 0 })
	if len(runs) == 0 {
		return nil
	}
	slices.SortFunc(runs, func(a, b *provisioning.RunResult) int {
		return cmp.Compare(measure.ZeroIfNaN(a.Throughput()), measure.ZeroIfNaN(b.Throughput()))
	})
	return runs[(len(runs)-1)/2]
}

// requestsPlot stacks the sidecar's provisioning requests per volume by verb
// and resource, one bar per scenario and variant.
func requestsPlot(results []*provisioning.ScenarioResult, variants []bench.Variant) (*plot.Plot, error) {
	prov := provisioning.Provisioning.Get
	seen := map[string]bool{}
	var keys []string
	for _, r := range results {
		for _, k := range r.Report.RequestKeys(prov) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	var labels []string
	layers := make([]stackSeries, len(keys))
	for i, k := range keys {
		layers[i].name = k
	}
	for _, r := range results {
		for _, want := range variants {
			for _, v := range r.Report.Variants {
				if v.Variant.Name != want.Name {
					continue
				}
				labels = append(labels, fmt.Sprintf("%s\n%s", r.Scenario.Label(), want.Name))
				for i, k := range keys {
					layers[i].values = append(layers[i].values, measure.ZeroIfNaN(v.RequestsPerVolume(prov, k).Median))
				}
			}
		}
	}
	return stackedBars("Sidecar requests per volume while provisioning (median of runs)", "requests per volume", labels, layers)
}
