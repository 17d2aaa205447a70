package soak

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// plotSize is wider and lower than the benchmark's plots: the x axis is
// the whole run.
var plotSize = measure.Size{Width: 9 * vg.Inch, Height: 4 * vg.Inch}

var faultColor = color.Gray{Y: 190}

// drawPlots draws the replicas' RSS and goroutines and the claims and
// volumes over the run, each with the faults as grey lines.
func drawPlots(res *Result, dir string) ([]measure.Plot, error) {
	type figure struct {
		file, title, y string
		draw           func(*plot.Plot) error
	}
	figures := []figure{
		{"rss.png", "csi-provisioner resident memory (a gap is a restart)", "MiB", func(p *plot.Plot) error {
			return addReplicaLines(p, res.Samples, func(r ReplicaSample) float64 { return measure.MiB(r.RSSBytes) })
		}},
		{"heap.png", "csi-provisioner Go heap in use (a gap is a restart)", "MiB", func(p *plot.Plot) error {
			return addReplicaLines(p, res.Samples, func(r ReplicaSample) float64 { return measure.MiB(r.HeapInuse) })
		}},
		{"goroutines.png", "csi-provisioner goroutines (a gap is a restart)", "goroutines", func(p *plot.Plot) error {
			return addReplicaLines(p, res.Samples, func(r ReplicaSample) float64 { return r.Goroutines })
		}},
		{"claims.png", "Claims, PVs and backend volumes", "objects", func(p *plot.Plot) error {
			return addRunLines(p, res.Samples)
		}},
	}
	var out []measure.Plot
	for _, f := range figures {
		p := plot.New()
		p.Title.Text = f.title + "; grey: a fault"
		p.X.Label.Text = "minutes"
		p.Y.Label.Text = f.y
		p.Y.Min = 0
		p.Legend.Top = true
		if err := f.draw(p); err != nil {
			return nil, err
		}
		if err := addFaultLines(p, res.Faults); err != nil {
			return nil, err
		}
		saved, err := measure.SavePlot(p, plotSize, dir, f.file, f.title)
		if err != nil {
			return nil, err
		}
		out = append(out, saved)
	}
	return out, nil
}

// addReplicaLines draws value per replica, one segment per incarnation.
func addReplicaLines(p *plot.Plot, samples []Sample, value func(ReplicaSample) float64) error {
	for i := range replicas {
		var seg plotter.XYs
		pid := 0
		legend := true
		flush := func() error {
			if len(seg) == 0 {
				return nil
			}
			l, err := plotter.NewLine(seg)
			if err != nil {
				return err
			}
			l.Color = plotutil.Color(i)
			p.Add(l)
			if legend {
				p.Legend.Add(fmt.Sprintf("replica %d", i), l)
				legend = false
			}
			seg = nil
			return nil
		}
		for _, s := range samples {
			if i >= len(s.Replicas) || !s.Replicas[i].Up || s.Replicas[i].Pid != pid {
				if err := flush(); err != nil {
					return err
				}
			}
			if i >= len(s.Replicas) || !s.Replicas[i].Up {
				pid = 0
				continue
			}
			pid = s.Replicas[i].Pid
			seg = append(seg, plotter.XY{X: s.At.Minutes(), Y: value(s.Replicas[i])})
		}
		if err := flush(); err != nil {
			return err
		}
	}
	return nil
}

func addRunLines(p *plot.Plot, samples []Sample) error {
	series := []struct {
		name  string
		value func(Sample) (float64, bool)
	}{
		{"claims", func(s Sample) (float64, bool) { return float64(s.Claims), s.Claims >= 0 }},
		{"PVs", func(s Sample) (float64, bool) { return float64(s.PVs), s.PVs >= 0 }},
		{"backend volumes", func(s Sample) (float64, bool) { return float64(s.Volumes), true }},
	}
	for i, sr := range series {
		var xys plotter.XYs
		for _, s := range samples {
			if v, ok := sr.value(s); ok {
				xys = append(xys, plotter.XY{X: s.At.Minutes(), Y: v})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		p.Add(l)
		p.Legend.Add(sr.name, l)
	}
	return nil
}

// addFaultLines marks each fault with a vertical line over the plot's
// range so far.
func addFaultLines(p *plot.Plot, faults []Fault) error {
	p.Y.Max = max(p.Y.Max, 1)
	for _, f := range faults {
		x := f.At.Minutes()
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		l.Color = faultColor
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
	}
	return nil
}
