// Command provisioning-bench is `make bench`: the performance report of
// csi-provisioner on the local control plane with the mock CSI driver. It
// runs, in turn:
//   - provisioning: throughput, latency and API requests per volume for a
//     matrix of sizes and client limits, with the ProvisioningProtection
//     gate on and off (a report per scenario, provisioning-*.md);
//   - memory: the sidecar's peak RSS and CPU with 10,000, 25,000 and
//     50,000 claims and PVs in its caches, the slope per pair, the time
//     to its first claim and the smallest memory limit that holds 50,000
//     (memory.md);
//   - pvc-protection: the sidecar's PVC protection controller against
//     kube-controller-manager's (pvc-protection.md);
//   - throttled: provisioning against a backend that rate-limits its API,
//     with and without --adaptive-concurrency (throttled.md);
//   - capacity: capacity tracking on 2,000 nodes whose capacity moves
//     (capacity.md);
//   - go: the Go benchmarks of the hot paths (go-benchmarks.md);
//
// and writes report.md, which puts them side by side with PNG plots, and
// results.json with every figure. With --publish=DIR (make bench
// BENCH_PUBLISH=docs/bench) it also copies report.md there as results.md,
// with the part reports and plots it links to, for the documentation. With --baseline=PATH (make bench
// BASELINE=PATH), every part but pvc-protection also runs that binary, an upstream
// release, as one more configuration, and every figure of ours is also
// reported as a ratio to it.
//
// Run it with `make bench` (BENCH_QUICK=1 for the short mode), which builds
// the binaries and the control plane first.
package main

import (
	"context"
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
	"github.com/csi-protect/external-provisioner/test/bench/report"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// quickEnv selects the short mode, as `BENCH_QUICK=1 make bench`.
const quickEnv = "BENCH_QUICK"

// config is the command line.
type config struct {
	quick  bool
	claims int
	// limits are the client limits of the one size of --claims.
	limits string
	// heapProfiles saves each memory run's heap profile in the out dir.
	heapProfiles bool
	// cpuProfileSeconds, if positive, profiles the sidecar's and
	// kube-apiserver's CPU for that long in each provisioning run.
	cpuProfileSeconds int
	runs              int
	outDir            string
	binDir            string
	cpDir             string
	keepWork          bool
	timeout           time.Duration
	// baseline is the sidecar executable of an upstream release to run as
	// one more configuration of the provisioning and memory benchmarks;
	// empty for none.
	baseline string
	// base is the baseline variant of --baseline, read once in run.
	base *bench.Variant
	// suites are the benchmarks to run.
	suites string
	// publishDir, if set, is where the report is published for the
	// documentation once every benchmark finished.
	publishDir string
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
	flag.BoolVar(&cfg.quick, "quick", os.Getenv(quickEnv) == "1", "short mode: smaller sizes, 1 run per configuration (default from $"+quickEnv+"=1)")
	flag.IntVar(&cfg.claims, "claims", 0, "provisioning: run this one size with the tuned client limits instead of the matrix of sizes")
	flag.StringVar(&cfg.limits, "limits", "tuned", "with --claims: the client limits of that size, tuned (200 QPS, 400 burst, 100 workers) or default (5 QPS, 10 burst)")
	flag.BoolVar(&cfg.heapProfiles, "heap-profiles", false, "memory: save each run's Go heap profile at its end as heap-<run order>.pb.gz in the out dir (the sidecars get --enable-pprof)")
	flag.IntVar(&cfg.cpuProfileSeconds, "cpu-profiles", 0, "provisioning: profile the sidecar's and kube-apiserver's CPU for this many seconds from the first create call of each run, saved as cpu-<scenario>-<run order>-<variant>-<component>.pb.gz in the out dir (the sidecars get --enable-pprof); 0: none")
	flag.IntVar(&cfg.runs, "runs", 0, "runs per configuration of every benchmark (default: each benchmark's own)")
	flag.StringVar(&cfg.outDir, "out-dir", "_output/bench", "folder for report.md, the plots, each benchmark's report and results.json; relative to the repository root")
	flag.StringVar(&cfg.binDir, "bin-dir", "", "folder with csi-provisioner and mock-csi-driver, relative to the repository root (default: $"+framework.BinDirEnv+" or bin/)")
	flag.StringVar(&cfg.cpDir, "control-plane-dir", "", "folder with etcd, kube-apiserver and kube-controller-manager, relative to the repository root (default: $"+framework.ControlPlaneDirEnv+" or _output/control-plane)")
	flag.BoolVar(&cfg.keepWork, "keep-work-dirs", false, "keep every run's work folder (logs, audit log); a failed run's is always kept")
	flag.Var(&cfg.sidecarArgs, "sidecar-arg", "a csi-provisioner flag for every configuration, replacing a default of the same name, e.g. --sidecar-arg=--kube-api-qps=1000 (repeatable)")
	flag.Var(&cfg.kcmArgs, "kcm-arg", "a kube-controller-manager flag, replacing a default of the same name (repeatable)")
	flag.DurationVar(&cfg.timeout, "timeout", 0, "limit for the whole benchmark (default: the sum of the suites' budgets, see budget.go; 200m for all of them with --baseline)")
	flag.StringVar(&cfg.baseline, "baseline", "", "an upstream external-provisioner binary (e.g. v5.1.0, built outside the repository) to run as one more configuration, \"baseline\", in the provisioning and memory benchmarks, every figure also reported as a ratio to it; relative to the repository root")
	flag.StringVar(&cfg.publishDir, "publish", "", "also copy report.md as results.md, with the part reports and plots it links to, into this folder (relative to the repository root), replacing the previous publication's; not with --quick")
	flag.StringVar(&cfg.suites, "suites", "provisioning,memory,pvc-protection,throttled,capacity,go", "benchmarks to run, comma-separated: provisioning, memory, pvc-protection, throttled, capacity, go")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "provisioning-bench: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if cfg.quick && cfg.publishDir != "" {
		fmt.Fprintf(os.Stderr, "provisioning-bench: --publish needs a full run: the quick mode checks that every part works, its figures are not to quote\n")
		os.Exit(2)
	}
	if cfg.limits != "tuned" && cfg.limits != "default" {
		fmt.Fprintf(os.Stderr, "provisioning-bench: --limits must be tuned or default, got %q\n", cfg.limits)
		os.Exit(2)
	}
	os.Exit(run(cfg))
}

func run(cfg config) int {
	defer klog.Flush()
	// The program runs in test/bench, its own module; the folders on its
	// command line are the repository's, as $BIN_DIR and
	// $CONTROL_PLANE_DIR are.
	for _, dir := range []*string{&cfg.binDir, &cfg.cpDir, &cfg.baseline, &cfg.publishDir} {
		var err error
		if *dir, err = fromRoot(*dir); err != nil {
			fmt.Fprintf(os.Stderr, "provisioning-bench: %v\n", err)
			return 1
		}
	}
	if cfg.baseline != "" {
		if err := checkExecutable(cfg.baseline); err != nil {
			fmt.Fprintf(os.Stderr, "provisioning-bench: --baseline: %v\n", err)
			return 2
		}
		base := bench.Baseline(cfg.baseline)
		cfg.base = &base
		fmt.Fprintf(os.Stderr, "baseline: %s (%s)\n", base.Binary, base.Version)
	}
	opts := cfg.options()
	timeout := cfg.timeout
	if timeout <= 0 {
		timeout = budget(cfg.suites, opts.Quick, cfg.baseline != "")
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
	ov, err := report.NewOverview(ctx, opts, invocation())
	if err != nil {
		fmt.Fprintf(os.Stderr, "provisioning-bench: %v\n", err)
		return 1
	}
	for _, suite := range strings.Split(cfg.suites, ",") {
		var err error
		switch suite {
		case "provisioning":
			ov.Provisioning, err = runProvisioning(ctx, cfg, opts, outDir)
		case "memory":
			ov.Memory, err = runMemory(ctx, cfg, outDir)
		case "pvc-protection":
			// Upstream has no PVC protection: the baseline does not
			// run here.
			ov.PVCProtection, err = runClaimDeletion(ctx, cfg, outDir)
		case "go":
			ov.GoBenchmarks, err = runGoBenchmarks(ctx, cfg, outDir)
		case "throttled":
			ov.Throttled, err = runThrottled(ctx, cfg, outDir)
		case "capacity":
			ov.Capacity, err = runCapacity(ctx, cfg, outDir)
		default:
			err = fmt.Errorf("unknown suite %q", suite)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "provisioning-bench: FAIL: %v\n", err)
			ov.Failures = append(ov.Failures, fmt.Sprintf("%s: %v", suite, err))
		}
	}
	ov.Duration = time.Since(ov.Started)
	if err := writeOverview(ov, outDir); err != nil {
		fmt.Fprintf(os.Stderr, "provisioning-bench: FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "provisioning-bench: took %s; report in %s\n", ov.Duration.Round(time.Second), filepath.Join(outDir, "report.md"))
	if len(ov.Failures) > 0 {
		if cfg.publishDir != "" {
			fmt.Fprintf(os.Stderr, "provisioning-bench: not published in %s: some benchmarks did not finish\n", cfg.publishDir)
		}
		return 1
	}
	if cfg.publishDir != "" {
		if err := publish(outDir, cfg.publishDir); err != nil {
			fmt.Fprintf(os.Stderr, "provisioning-bench: FAIL: publishing the report: %v\n", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "provisioning-bench: published in %s\n", filepath.Join(cfg.publishDir, publishedReport))
	}
	return 0
}
