package measure

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Plot is a PNG a report shows.
type Plot struct {
	// File is the PNG's name, in the report's folder.
	File  string `json:"file"`
	Title string `json:"title"`
}

// Size is a plot's size; PNGs are drawn at 96 dpi.
type Size struct{ Width, Height vg.Length }

// SavePlot writes p as dir/file, a PNG of the given size, and returns it
// as the report names it.
func SavePlot(p *plot.Plot, size Size, dir, file, title string) (Plot, error) {
	if err := p.Save(size.Width, size.Height, filepath.Join(dir, file)); err != nil {
		return Plot{}, fmt.Errorf("plot %s: %w", file, err)
	}
	return Plot{File: file, Title: title}, nil
}
