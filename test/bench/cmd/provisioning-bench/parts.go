package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench/claimdeletion"
	"github.com/csi-protect/external-provisioner/test/bench/gobench"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
	"github.com/csi-protect/external-provisioner/test/bench/report"
)

// runProvisioning runs the provisioning scenarios and writes each one's
// report, provisioning-<size>-<limits>.md.
func runProvisioning(ctx context.Context, cfg config, opts provisioning.Options, outDir string) ([]*provisioning.ScenarioResult, error) {
	if cfg.cpuProfileSeconds > 0 {
		opts.CPUProfileDir, opts.CPUProfileSeconds = outDir, cfg.cpuProfileSeconds
	}
	results, err := provisioning.RunScenarios(ctx, opts, cfg.scenarios(), invocation())
	for _, r := range results {
		if werr := writeMarkdown(outDir, r.Scenario.Slug(), report.Provisioning(r.Report)); werr != nil {
			return results, werr
		}
		if err == nil && r.Report.HasProblems() {
			err = fmt.Errorf("some runs of %s had errors (see %s.md)", r.Scenario.Name(), r.Scenario.Slug())
		}
	}
	return results, err
}

// runMemory runs the memory benchmark and writes memory.md and
// memory.json. --runs, --sidecar-arg and --kcm-arg apply to it as to the
// others; the numbers of claims and PVs are the mode's (10,000, 25,000
// and 50,000, the sweep of memory limits at 50,000; quick 1,000, 2,000 and
// 4,000, the sweep at 4,000).
func runMemory(ctx context.Context, cfg config, outDir string) (*memory.Report, error) {
	opts := memory.DefaultOptions()
	if cfg.quick {
		opts = memory.QuickOptions()
	}
	cfg.apply(&opts.Settings)
	if cfg.heapProfiles {
		opts.HeapProfileDir = outDir
	}
	if cfg.base != nil {
		opts.Variants = append(opts.Variants, *cfg.base)
	}
	rep, err := memory.Run(ctx, opts, invocation())
	if err != nil {
		return nil, err
	}
	return rep, finish(outDir, "memory", "memory", true, rep)
}

// runClaimDeletion runs the PVC protection benchmark and writes
// pvc-protection.md.
func runClaimDeletion(ctx context.Context, cfg config, outDir string) (*claimdeletion.Report, error) {
	opts := claimdeletion.DefaultOptions()
	if cfg.quick {
		opts = claimdeletion.QuickOptions()
	}
	cfg.apply(&opts.Settings)
	rep, err := claimdeletion.Run(ctx, opts, invocation())
	if err != nil {
		return nil, err
	}
	return rep, finish(outDir, "pvc-protection", "PVC protection", false, rep)
}

// finish writes a part's report as name.md, and its figures as name.json
// if withJSON, and fails if any of its runs had problems.
func finish(outDir, name, what string, withJSON bool, rep interface {
	Markdown() string
	HasProblems() bool
}) error {
	var err error
	if withJSON {
		err = writeOutputs(outDir, name, name, rep, rep.Markdown())
	} else {
		err = writeMarkdown(outDir, name, rep.Markdown())
	}
	if err != nil {
		return err
	}
	if rep.HasProblems() {
		return fmt.Errorf("some %s runs had errors (see %s.md)", what, name)
	}
	return nil
}

// runGoBenchmarks runs the Go benchmarks of the hot paths (go test -bench
// over gobench.Packages) and writes go-benchmarks.md and
// go-benchmarks.json, with go test's own output in go-bench.txt. Failed
// benchmarks are reported along with the others' figures.
func runGoBenchmarks(ctx context.Context, cfg config, outDir string) (*gobench.Results, error) {
	opts := gobench.DefaultOptions()
	if cfg.quick {
		opts = gobench.QuickOptions()
	}
	if cfg.runs > 0 {
		opts.Count = cfg.runs
	}
	opts.RawOutput = filepath.Join(outDir, "go-bench.txt")
	opts.Progress = os.Stderr
	fmt.Fprintf(os.Stderr, "go benchmarks: %d packages, -count %d -benchtime %s\n", len(opts.Packages), opts.Count, opts.Benchtime)
	res, err := gobench.Run(ctx, opts)
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
