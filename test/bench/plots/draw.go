package plots

import (
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/report"
)

// Draw draws every plot of the overview into dir and returns them in the
// order the report shows them.
func Draw(o *report.Overview, dir string) ([]measure.Plot, error) {
	plots, err := provisioningPlots(o.Provisioning, dir)
	if err != nil {
		return nil, err
	}
	if o.Memory != nil {
		p, err := memoryPlot(o.Memory, dir)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if o.PVCProtection != nil {
		p, err := pvcProtectionPlot(o.PVCProtection, dir)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	return plots, nil
}
