package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
)

// memoryPlot draws each variant's peak RSS over the number of pairs
// cached: the median of its runs at each size, joined by lines, with the
// runs' min–max as error bars, and the slope in its legend. The goals are
// drawn where they judge: the budget at the smallest size, the slope from
// the shipped settings' first median on, and the bound against the
// baseline at the largest size.
func memoryPlot(r *memory.Report, dir string) (measure.Plot, error) {
	sizes := r.Sizes()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Sidecar peak RSS with %s claims and PVs cached (median of runs, bars: min–max)", bench.ThousandsRange(sizes))
	p.X.Label.Text = "claims and PVs cached (pairs)"
	p.Y.Label.Text = "MiB"
	p.X.Min, p.Y.Min = 0, 0
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Tick.Marker = sizeTicks(sizes)
	p.Y.Tick.Marker = mibTicks{}
	top := 0.0
	ours := 0
	for _, v := range r.Variants {
		var pts plotter.XYs
		var errs errorPoints
		for _, s := range sizes {
			sp := r.PeakRSSAt(v.Name, s)
			if math.IsNaN(sp.Median) {
				continue
			}
			pts = append(pts, plotter.XY{X: float64(s), Y: sp.Median})
			errs = append(errs, errorPoint{x: float64(s), y: sp.Median, low: sp.Median - sp.Min, high: sp.Max - sp.Median})
			top = math.Max(top, sp.Max)
		}
		if len(pts) == 0 {
			continue
		}
		var c color.Color = baselineColor
		if !v.IsBaseline() {
			c = seriesColor(nil, ours)
			ours++
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return measure.Plot{}, err
		}
		line.Color, line.Width = c, vg.Points(2)
		points.Color, points.Shape, points.Radius = c, draw.CircleGlyph{}, vg.Points(3)
		eb, err := plotter.NewYErrorBars(errs)
		if err != nil {
			return measure.Plot{}, err
		}
		eb.Color = c
		p.Add(line, points, eb)
		label := v.Label()
		if f, ok := r.FitOf(v.Name); ok {
			label += fmt.Sprintf(": %.2f KiB per pair", f.KiBPerPair())
		}
		p.Legend.Add(label, line, points)
	}
	goalTop, err := addMemoryGoals(p, r, sizes)
	if err != nil {
		return measure.Plot{}, err
	}
	top = math.Max(top, goalTop)
	if len(sizes) > 0 {
		p.X.Max = float64(sizes[len(sizes)-1]) * 1.05
	}
	// Room above the highest point for the legend.
	p.Y.Max = top * (1.2 + 0.07*float64(len(r.Variants)+3))
	p.Add(plotter.NewGrid())
	return savePlot(p, dir, "memory.png", "Sidecar peak RSS over the number of cached pairs")
}

// addMemoryGoals draws the memory goals and returns the highest of them.
func addMemoryGoals(p *plot.Plot, r *memory.Report, sizes []int) (float64, error) {
	if len(sizes) == 0 {
		return 0, nil
	}
	small, large := sizes[0], sizes[len(sizes)-1]
	top := r.GoalMiB
	if err := addGoalMark(p, goalColors[0], fmt.Sprintf("goal: every run of ours < %.0f MiB at %s", r.GoalMiB, bench.Thousands(small)), float64(small), r.GoalMiB); err != nil {
		return 0, err
	}
	if from := r.PeakRSSAt(r.Shipped, small).Median; len(sizes) > 1 && !math.IsNaN(from) {
		to := from + memory.GoalSlopeKiBPerPair/1024*float64(large-small)
		l, err := plotter.NewLine(plotter.XYs{{X: float64(small), Y: from}, {X: float64(large), Y: to}})
		if err != nil {
			return 0, err
		}
		l.Color = goalColors[1]
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("goal: %s grows ≤ %.0f KiB per pair", r.Shipped, memory.GoalSlopeKiBPerPair), l)
		top = math.Max(top, to)
	}
	if b := r.BaselineVariant(); b != nil {
		if base := r.PeakRSSAt(b.Name, large).Median; !math.IsNaN(base) {
			y := memory.GoalPeakRSSVsBaselineLargest * base
			if err := addGoalMark(p, baselineGoalColor, fmt.Sprintf("goal for %s at %s: ≤ %.1f × %s = %.0f MiB", r.Shipped, bench.Thousands(large), memory.GoalPeakRSSVsBaselineLargest, b.Name, y), float64(large), y); err != nil {
				return 0, err
			}
		}
	}
	return top, nil
}

// baselineGoalColor is the goal against the baseline's: orange, apart
// from the budget's red and the slope's purple.
var baselineGoalColor = color.RGBA{R: 220, G: 120, A: 255}

// addGoalMark draws a goal that holds at one size: a cross.
func addGoalMark(p *plot.Plot, c color.Color, name string, x, y float64) error {
	s, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
	if err != nil {
		return err
	}
	s.Shape = draw.CrossGlyph{}
	s.Radius = vg.Points(6)
	s.GlyphStyle.Color = c
	p.Add(s)
	p.Legend.Add(name, s)
	return nil
}

// sizeTicks marks the sizes on the x axis, with thousands separators.
func sizeTicks(sizes []int) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		ticks := []plot.Tick{{Value: 0, Label: "0"}}
		for _, s := range sizes {
			ticks = append(ticks, plot.Tick{Value: float64(s), Label: bench.Thousands(s)})
		}
		return ticks
	})
}

// mibTicks marks the y axis every round number of MiB, about six times:
// gonum's default picks as few as two ticks for the range of this plot.
type mibTicks struct{}

func (mibTicks) Ticks(min, max float64) []plot.Tick {
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000} {
		step = s
		if (max-min)/s <= 7 {
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	return ticks
}
