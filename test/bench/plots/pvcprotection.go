package plots

import (
	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/claimdeletion"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// pvcProtectionPlot draws the time until all claims are gone, per
// controller.
func pvcProtectionPlot(r *claimdeletion.Report, dir string) (measure.Plot, error) {
	var groups []string
	var series barSeries
	series.name = "time until every claim is gone"
	for _, c := range r.Options.Controllers {
		groups = append(groups, c.Name)
		series.values = append(series.values, r.GoneIn(c.Name))
	}
	p, err := groupedBars("PVC protection: deleting "+bench.Thousands(r.Options.Claims)+" unused claims among "+bench.Thousands(r.Options.Pods)+" scheduled pods", "seconds", groups, []barSeries{series})
	if err != nil {
		return measure.Plot{}, err
	}
	return savePlot(p, dir, "pvc-protection.png", "PVC protection, time until every claim is gone")
}
