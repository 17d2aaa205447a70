package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// runGoBenchmarks runs the Go benchmarks of the hot paths (go test -bench
// over bench.GoBenchPackages) and writes go-benchmarks.md and
// go-benchmarks.json, with go test's own output in go-bench.txt. Failed
// benchmarks are reported along with the others' figures.
func runGoBenchmarks(ctx context.Context, cfg config, outDir string) (*bench.GoBenchmarks, error) {
	opts := bench.DefaultGoBenchOptions()
	if cfg.quick {
		opts = bench.QuickGoBenchOptions()
	}
	if cfg.runs > 0 {
		opts.Count = cfg.runs
	}
	opts.RawOutput = filepath.Join(outDir, "go-bench.txt")
	opts.Progress = os.Stderr
	fmt.Fprintf(os.Stderr, "go benchmarks: %d packages, -count %d -benchtime %s\n", len(opts.Packages), opts.Count, opts.Benchtime)
	res, err := bench.RunGoBenchmarks(ctx, opts)
	if res == nil {
		return nil, err
	}
	md := res.Markdown()
	if werr := writeOutputs(outDir, "go-benchmarks", "go-benchmarks", res, md); werr != nil {
		return res, werr
	}
	if err == nil && res.HasProblems() {
		err = fmt.Errorf("go benchmarks failed: %s", strings.Join(res.Failures, "; "))
	}
	return res, err
}
