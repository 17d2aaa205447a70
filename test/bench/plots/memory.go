package plots

import (
	"fmt"
	"math"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
)

// memoryPlot draws each variant's peak RSS, at the end and once synced and
// idle, against the goal, and against the goal relative to the baseline
// when one ran.
func memoryPlot(r *memory.Report, dir string) (measure.Plot, error) {
	var groups []string
	peak := barSeries{name: "peak RSS"}
	idle := barSeries{name: "peak RSS once synced and idle, before the batch"}
	for _, v := range r.Variants {
		groups = append(groups, wrapLabel(v.Label(), 24))
		peak.values = append(peak.values, r.PeakRSS(v.Name))
		idle.values = append(idle.values, r.IdlePeakRSS(v.Name))
	}
	title := fmt.Sprintf("Sidecar peak RSS with %s claims and PVs cached (median of runs, bars: min–max)", bench.Thousands(r.Setup.Objects))
	goals := []goalLine{{name: fmt.Sprintf("goal: under %.0f MiB", r.GoalMiB), y: r.GoalMiB}}
	if b := r.BaselineVariant(); b != nil {
		if base := r.PeakRSS(b.Name).Median; !math.IsNaN(base) {
			goals = append(goals, goalLine{name: fmt.Sprintf("goal for %s: ≤ %.1f × %s = %.0f MiB", r.Shipped, memory.GoalPeakRSSVsBaseline, b.Name, memory.GoalPeakRSSVsBaseline*base), y: memory.GoalPeakRSSVsBaseline * base})
		}
	}
	p, err := groupedBars(title, "MiB", groups, []barSeries{peak, idle}, goals...)
	if err != nil {
		return measure.Plot{}, err
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
