// Command provisioning-bench measures what provisioning protection costs:
// it provisions and deletes a batch of claims with csi-provisioner's
// ProvisioningProtection gate on and off, on the local control plane with
// the mock CSI driver, and writes a markdown report (also printed) and the
// raw results as JSON. It then compares the sidecar's PVC protection
// controller with kube-controller-manager's on a batch of claim deletions
// (pvc-protection.md and pvc-protection.json).
//
// Run it with `make bench` (BENCH_QUICK=1 for the short mode), which builds
// the binaries and the control plane first.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// quickEnv selects the short mode, as `BENCH_QUICK=1 make bench`.
const quickEnv = "BENCH_QUICK"

// config is the command line.
type config struct {
	quick    bool
	claims   int
	runs     int
	outDir   string
	binDir   string
	cpDir    string
	keepWork bool
	timeout  time.Duration
	// suites are the benchmarks to run.
	suites string
	// sidecarArgs and kcmArgs replace the defaults' flags with the same
	// name, to explore what limits throughput.
	sidecarArgs listFlag
	kcmArgs     listFlag
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	klog.InitFlags(nil)
	cfg := config{}
	flag.BoolVar(&cfg.quick, "quick", os.Getenv(quickEnv) == "1", "short mode: 100 claims, 1 run per configuration (default from $"+quickEnv+"=1)")
	flag.IntVar(&cfg.claims, "claims", 0, "claims per run (default 1000, quick 100)")
	flag.IntVar(&cfg.runs, "runs", 0, "runs per configuration (default 3, quick 1)")
	flag.StringVar(&cfg.outDir, "out-dir", "_output/bench", "folder for report.md and results.json; relative to the repository root")
	flag.StringVar(&cfg.binDir, "bin-dir", "", "folder with csi-provisioner and mock-csi-driver (default: $"+framework.BinDirEnv+" or bin/)")
	flag.StringVar(&cfg.cpDir, "control-plane-dir", "", "folder with etcd, kube-apiserver and kube-controller-manager (default: $"+framework.ControlPlaneDirEnv+" or _output/control-plane)")
	flag.BoolVar(&cfg.keepWork, "keep-work-dirs", false, "keep every run's work folder (logs, audit log); a failed run's is always kept")
	flag.Var(&cfg.sidecarArgs, "sidecar-arg", "a csi-provisioner flag for every configuration, replacing a default of the same name, e.g. --sidecar-arg=--kube-api-qps=1000 (repeatable)")
	flag.Var(&cfg.kcmArgs, "kcm-arg", "a kube-controller-manager flag, replacing a default of the same name (repeatable)")
	flag.DurationVar(&cfg.timeout, "timeout", 0, "limit for the whole benchmark (default 40m, quick 8m)")
	flag.StringVar(&cfg.suites, "suites", "provisioning,pvc-protection", "benchmarks to run, comma-separated: provisioning, pvc-protection")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "provisioning-bench: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	os.Exit(run(cfg))
}

func (c config) options() bench.Options {
	opts := bench.DefaultOptions()
	if c.quick {
		opts = bench.QuickOptions()
	}
	if c.claims > 0 {
		opts.Claims = c.claims
	}
	if c.runs > 0 {
		opts.Runs = c.runs
	}
	opts.SidecarArgs = bench.OverrideArgs(opts.SidecarArgs, c.sidecarArgs)
	opts.KCMArgs = bench.OverrideArgs(opts.KCMArgs, c.kcmArgs)
	opts.BinDir = c.binDir
	opts.ControlPlaneDir = c.cpDir
	opts.KeepWorkDirs = c.keepWork
	opts.Progress = os.Stderr
	return opts
}

func run(cfg config) int {
	defer klog.Flush()
	opts := cfg.options()
	timeout := cfg.timeout
	if timeout <= 0 {
		timeout = 40 * time.Minute
		if opts.Quick {
			timeout = 8 * time.Minute
		}
	}
	// Ctrl-C ends the benchmark through each stack's normal stop; the
	// components are in their own process groups and do not see it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the benchmark's --timeout of %s ran out", timeout))
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())

	outDir, err := resolveOutDir(cfg.outDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "provisioning-bench: %v\n", err)
		return 1
	}
	closeLog, err := logToFile(filepath.Join(outDir, "bench.log"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "provisioning-bench: %v\n", err)
		return 1
	}
	defer closeLog()
	status := 0
	for _, suite := range strings.Split(cfg.suites, ",") {
		var err error
		switch suite {
		case "provisioning":
			err = runProvisioning(ctx, opts, outDir)
		case "pvc-protection":
			err = runClaimDeletion(ctx, cfg, outDir)
		default:
			err = fmt.Errorf("unknown suite %q", suite)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "provisioning-bench: FAIL: %v\n", err)
			status = 1
		}
	}
	return status
}

func runProvisioning(ctx context.Context, opts bench.Options, outDir string) error {
	rep, err := bench.Run(ctx, opts, invocation())
	if err != nil {
		return err
	}
	md := rep.Markdown()
	fmt.Print(md)
	if err := writeOutputs(outDir, "report", rep, md); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "provisioning-bench: report in %s\n", filepath.Join(outDir, "report.md"))
	if rep.HasProblems() {
		return errors.New("some provisioning runs had errors (see the report)")
	}
	return nil
}

func runClaimDeletion(ctx context.Context, cfg config, outDir string) error {
	opts := bench.DefaultDeletionOptions()
	if cfg.quick {
		opts = bench.QuickDeletionOptions()
	}
	if cfg.runs > 0 {
		opts.Runs = cfg.runs
	}
	opts.KCMArgs = bench.OverrideArgs(opts.KCMArgs, cfg.kcmArgs)
	opts.SidecarArgs = bench.OverrideArgs(opts.SidecarArgs, cfg.sidecarArgs)
	opts.BinDir, opts.ControlPlaneDir, opts.KeepWorkDirs, opts.Progress = cfg.binDir, cfg.cpDir, cfg.keepWork, os.Stderr
	rep, err := bench.RunClaimDeletion(ctx, opts, invocation())
	if err != nil {
		return err
	}
	md := rep.Markdown()
	fmt.Print(md)
	if err := writeOutputs(outDir, "pvc-protection", rep, md); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "provisioning-bench: report in %s\n", filepath.Join(outDir, "pvc-protection.md"))
	if rep.HasProblems() {
		return errors.New("some PVC protection runs had errors (see the report)")
	}
	return nil
}

// invocation is how the benchmark was started, for the report: the make
// target when make ran it, with the environment variable that changes what
// it does, and the program's own arguments.
func invocation() bench.Invocation {
	inv := bench.Invocation{Program: strings.Join(append([]string{"provisioning-bench"}, os.Args[1:]...), " ")}
	if os.Getenv("MAKELEVEL") != "" {
		inv.Command = "make bench"
		if v := os.Getenv(quickEnv); v != "" {
			inv.Command = quickEnv + "=" + v + " " + inv.Command
		}
	}
	return inv
}

func resolveOutDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		root, err := framework.RepoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, dir)
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// logToFile sends the program's own klog output (client-go's watch
// warnings while the API server is saturated) to a file, so that the
// progress lines on stderr stay readable.
func logToFile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	klog.LogToStderr(false)
	klog.SetOutput(f)
	return func() {
		klog.Flush()
		_ = f.Close()
	}, nil
}

func writeOutputs(dir, name string, rep any, md string) error {
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(md), 0o644); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if name == "report" {
		name = "results"
	}
	return os.WriteFile(filepath.Join(dir, name+".json"), append(data, '\n'), 0o644)
}
