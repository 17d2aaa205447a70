package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// size is every plot's size.
var size = measure.Size{Width: 8 * vg.Inch, Height: 4.5 * vg.Inch}

// barSeries is one colour of a grouped bar chart: a value per group, with
// the runs' spread drawn as an error bar.
type barSeries struct {
	name   string
	values []measure.Spread
	// color overrides the palette's, e.g. grey for the baseline.
	color color.Color
}

// Colours of the baseline (an upstream release) in plots: greys, so that it
// stands apart from the palette's colours of ours.
var (
	baselineColor     = color.Gray{Y: 140}
	baselineDarkColor = color.Gray{Y: 70}
)

// seriesColor is the i-th series' colour: its own, or the palette's.
func seriesColor(c color.Color, i int) color.Color {
	if c != nil {
		return c
	}
	return plotutil.Color(i)
}

// groupedBars draws each series side by side in every group, with the
// runs' min–max as error bars, and a dashed line at each goal.
func groupedBars(title, yLabel string, groups []string, series []barSeries, goals ...goalLine) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	n := len(series)
	// A group spans 0.8 of the distance between two labels; bar widths are
	// in points, so they follow the plot's drawing width.
	slot := 0.8 / float64(n)
	barWidth := vg.Length(float64(size.Width-1*vg.Inch) / float64(len(groups)) * slot * 0.9)
	top := 0.0
	for i, s := range series {
		vals := make(plotter.Values, len(groups))
		errs := make(errorPoints, len(groups))
		for g := range groups {
			v := measure.Spread{Median: math.NaN()}
			if g < len(s.values) {
				v = s.values[g]
			}
			x := float64(g) - 0.4 + slot*(float64(i)+0.5)
			errs[g] = errorPoint{x: x, y: measure.ZeroIfNaN(v.Median), low: measure.ZeroIfNaN(v.Median - v.Min), high: measure.ZeroIfNaN(v.Max - v.Median)}
			vals[g] = measure.ZeroIfNaN(v.Median)
			top = math.Max(top, measure.ZeroIfNaN(v.Max))
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return nil, err
		}
		bars.XMin = -0.4 + slot*(float64(i)+0.5)
		bars.Color = seriesColor(s.color, i)
		bars.LineStyle.Width = 0
		eb, err := plotter.NewYErrorBars(errs)
		if err != nil {
			return nil, err
		}
		p.Add(bars, eb)
		p.Legend.Add(s.name, bars)
	}
	for i, goal := range goals {
		line, err := goal.line(len(groups), i)
		if err != nil {
			return nil, err
		}
		p.Add(line)
		p.Legend.Add(goal.name, line)
		top = math.Max(top, goal.y)
	}
	// Room above the highest bar for the legend.
	p.Y.Max = top * (1.15 + 0.08*float64(n+len(goals)))
	p.NominalX(groups...)
	p.Add(plotter.NewGrid())
	return p, nil
}

// goalLine is a horizontal dashed line across a bar chart.
type goalLine struct {
	name string
	y    float64
}

// goalColors are the goal lines' colours, in order: red, then purple.
var goalColors = []color.Color{color.RGBA{R: 200, A: 255}, color.RGBA{R: 120, B: 160, A: 255}}

func (g goalLine) line(groups, i int) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: g.y}, {X: float64(groups) - 0.5, Y: g.y}})
	if err != nil {
		return nil, err
	}
	l.Color = goalColors[i%len(goalColors)]
	l.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	l.Width = vg.Points(1.5)
	return l, nil
}

// errorPoint is a bar's top and its error bar.
type errorPoint struct{ x, y, low, high float64 }

type errorPoints []errorPoint

func (e errorPoints) Len() int                    { return len(e) }
func (e errorPoints) XY(i int) (float64, float64) { return e[i].x, e[i].y }
func (e errorPoints) YError(i int) (float64, float64) {
	return e[i].low, e[i].high
}

// cdfSeries is one line of a cumulative distribution.
type cdfSeries struct {
	name string
	// color overrides the palette's, e.g. grey for the baseline.
	color color.Color
	// sorted are the values, in ascending order.
	sorted []float64
}

// cdf draws the share of values at or below each x, one line per series.
func cdf(title, xLabel string, series []cdfSeries) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = "share of claims"
	p.X.Min, p.Y.Min, p.Y.Max = 0, 0, 1
	p.Legend.Top = false
	p.Legend.Left = false
	for i, s := range series {
		if len(s.sorted) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(s.sorted)+1)
		pts = append(pts, plotter.XY{X: 0, Y: 0})
		for j, v := range s.sorted {
			pts = append(pts, plotter.XY{X: v, Y: float64(j+1) / float64(len(s.sorted))})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = seriesColor(s.color, i)
		l.Width = vg.Points(2)
		l.StepStyle = plotter.PostStep
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// stackSeries is one layer of a stacked bar chart: a value per bar.
type stackSeries struct {
	name   string
	values []float64
}

// stackedBars draws one bar per label, each the sum of the layers.
func stackedBars(title, yLabel string, labels []string, layers []stackSeries) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = false
	width := vg.Length(float64(size.Width-1*vg.Inch) / float64(len(labels)) * 0.6)
	var below *plotter.BarChart
	totals := make([]float64, len(labels))
	for i, l := range layers {
		vals := make(plotter.Values, len(labels))
		for j := range labels {
			if j < len(l.values) {
				vals[j] = measure.ZeroIfNaN(l.values[j])
				totals[j] += vals[j]
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(l.name, bars)
	}
	top := 0.0
	for _, t := range totals {
		top = math.Max(top, t)
	}
	p.Y.Max = top * (1.2 + 0.07*float64(len(layers)))
	p.NominalX(labels...)
	p.Add(plotter.NewGrid())
	return p, nil
}

// savePlot writes p as dir/file, its legend and group labels in a smaller
// font than gonum's default so that long variant names fit.
func savePlot(p *plot.Plot, dir, file, title string) (measure.Plot, error) {
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	return measure.SavePlot(p, size, dir, file, title)
}
