package bench

import (
	"fmt"
	"math"
	"strings"
)

// DrawPlots draws every plot of the overview into dir and returns them in
// the order the report shows them.
func DrawPlots(o *Overview, dir string) ([]Plot, error) {
	plots, err := ProvisioningPlots(o.Provisioning, dir)
	if err != nil {
		return nil, err
	}
	if o.Memory != nil {
		p, err := o.Memory.plot(dir)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if o.PVCProtection != nil {
		p, err := o.PVCProtection.plot(dir)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	return plots, nil
}

// plot draws the time until all claims are gone, per controller.
func (r *DeletionReport) plot(dir string) (Plot, error) {
	var groups []string
	var series barSeries
	series.name = "time until every claim is gone"
	for _, c := range r.Options.Controllers {
		groups = append(groups, c.Name)
		series.values = append(series.values, r.spread(c.Name, runSeconds))
	}
	p, err := groupedBars("PVC protection: deleting "+thousands(r.Options.Claims)+" unused claims among "+thousands(r.Options.Pods)+" scheduled pods", "seconds", groups, []barSeries{series})
	if err != nil {
		return Plot{}, err
	}
	return savePlot(p, dir, "pvc-protection.png", "PVC protection, time until every claim is gone")
}

// plot draws each variant's peak RSS, at the end and once synced and idle,
// against the goal, and against the goal relative to the baseline when one
// ran.
func (r *MemoryReport) plot(dir string) (Plot, error) {
	var groups []string
	peak := barSeries{name: "peak RSS"}
	idle := barSeries{name: "peak RSS once synced and idle, before the batch"}
	for _, v := range r.Variants {
		groups = append(groups, wrapLabel(v.Label(), 24))
		peak.values = append(peak.values, r.spread(v.Name, func(m *MemoryRun) float64 { return mib(m.End.PeakRSS) }))
		idle.values = append(idle.values, r.spread(v.Name, func(m *MemoryRun) float64 { return mibOrNaN(m.Idle.PeakRSS) }))
	}
	title := fmt.Sprintf("Sidecar peak RSS with %s claims and PVs cached (median of runs, bars: min–max)", thousands(r.Setup.Objects))
	goals := []goalLine{{name: fmt.Sprintf("goal: under %.0f MiB", r.GoalMiB), y: r.GoalMiB}}
	if b := r.baselineVariant(); b != nil {
		if base := r.peakRSS(b.Name).Median; !math.IsNaN(base) {
			goals = append(goals, goalLine{name: fmt.Sprintf("goal for %s: ≤ %.1f × %s = %.0f MiB", r.Shipped, goalPeakRSSVsBaseline, b.Name, goalPeakRSSVsBaseline*base), y: goalPeakRSSVsBaseline * base})
		}
	}
	p, err := groupedBars(title, "MiB", groups, []barSeries{peak, idle}, goals...)
	if err != nil {
		return Plot{}, err
	}
	return savePlot(p, dir, "memory.png", "Sidecar peak RSS per variant")
}

// wrapLabel breaks an axis label into lines of about width characters, at
// spaces, so that the labels of neighbouring groups do not run into each
// other; a parenthesis always starts a line.
func wrapLabel(label string, width int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(label) {
		if line != "" && (len(line)+1+len(word) > width || strings.HasPrefix(word, "(")) {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}
