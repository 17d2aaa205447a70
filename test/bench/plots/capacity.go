package plots

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/capacity"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// Capacity draws the capacity benchmark's moving phase into dir: the
// capacity backlog (the workqueue's depth and the pending writes) and the
// p99 relative error of the published
// capacity over time, one line per configuration and run, the baseline in
// grey. The x axis counts poll intervals, so quick and full runs read
// alike.
func Capacity(r *capacity.Report, dir string) ([]measure.Plot, error) {
	poll := r.Options.PollInterval.Seconds()
	objects := float64(r.Setup.Objects)
	figures := []struct {
		file, title, y string
		points         func(capacity.Moving) plotter.XYs
		goal           goalLine
	}{
		{"capacity-queue-depth.png", "Capacity backlog (queued keys and pending writes), moving phase at the default budget", "items waiting",
			func(m capacity.Moving) plotter.XYs {
				var xys plotter.XYs
				for _, d := range m.Depths {
					xys = append(xys, plotter.XY{X: d.At.Seconds() / poll, Y: float64(d.Backlog())})
				}
				return xys
			},
			goalLine{name: fmt.Sprintf("%s objects", bench.Thousands(r.Setup.Objects)), y: objects}},
		{"capacity-error.png", "p99 relative error of the published capacity, moving phase", "% of the driver's answer",
			func(m capacity.Moving) plotter.XYs {
				var xys plotter.XYs
				for _, s := range m.Samples {
					if s.Objects > 0 {
						xys = append(xys, plotter.XY{X: s.At.Seconds() / poll, Y: 100 * s.ErrorP99})
					}
				}
				return xys
			},
			goalLine{name: fmt.Sprintf("goal: ≤ %s", bench.Pct(capacity.GoalErrorP99)), y: 100 * capacity.GoalErrorP99}},
	}
	var out []measure.Plot
	for _, f := range figures {
		p := plot.New()
		p.Title.Text = f.title
		p.X.Label.Text = "poll intervals since the sidecar started"
		p.Y.Label.Text = f.y
		p.X.Min, p.Y.Min = 0, 0
		p.Legend.Top = true
		p.Legend.Left = true
		for i, run := range r.Runs {
			xys := f.points(run.Moving)
			if len(xys) == 0 {
				continue
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.Width = vg.Points(2)
			l.Color = seriesColor(runColor(r, run.Variant), i)
			p.Add(l)
			p.Legend.Add(runLabel(r, run), l)
		}
		end := float64(r.Options.MovingPolls)
		goal, err := plotter.NewLine(plotter.XYs{{X: 0, Y: f.goal.y}, {X: end, Y: f.goal.y}})
		if err != nil {
			return nil, err
		}
		// Purple: the palette's first colour, ours, is red.
		goal.Color = goalColors[1]
		goal.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
		goal.Width = vg.Points(1.5)
		p.Add(goal, plotter.NewGrid())
		p.Legend.Add(f.goal.name, goal)
		saved, err := savePlot(p, dir, f.file, f.title)
		if err != nil {
			return nil, err
		}
		out = append(out, saved)
	}
	return out, nil
}

// runColor is grey for the baseline's runs, nil (the palette's) for ours.
func runColor(r *capacity.Report, variant string) color.Color {
	for _, v := range r.Options.Variants {
		if v.Name == variant && v.IsBaseline() {
			return baselineColor
		}
	}
	return nil
}

// runLabel names a run's line: the configuration, and its run when there
// are several.
func runLabel(r *capacity.Report, run *capacity.RunResult) string {
	label := run.Variant
	for _, v := range r.Options.Variants {
		if v.Name == run.Variant {
			label = v.Label()
		}
	}
	if r.Options.Runs > 1 {
		label += fmt.Sprintf(", run %d", run.Run)
	}
	return label
}
