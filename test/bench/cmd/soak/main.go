// Command soak is `make soak`: csi-provisioner under claim churn and
// scheduled faults for --duration (30 minutes by default), then a report of
// what that left behind (report.md with PNG plots, result.json). It exits 1
// if anything leaked, stuck or was made twice. Not part of CI.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/test/bench/soak"
)

func main() {
	klog.InitFlags(nil)
	var o soak.Options
	flag.DurationVar(&o.Duration, "duration", 30*time.Minute, "how long claims churn and faults are injected; the clean-up and the report come on top")
	flag.Uint64Var(&o.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the churn and the fault schedule; the report names it, to replay a run")
	flag.IntVar(&o.Workers, "workers", 4, "claims churned at once")
	flag.DurationVar(&o.FaultInterval, "fault-interval", 2*time.Minute, "mean time between two faults")
	flag.DurationVar(&o.CreateDelay, "create-delay", time.Second, "the mock driver's time to make a volume")
	flag.StringVar(&o.OutDir, "out-dir", "", "folder for report.md, the plots, result.json, soak.log and the stack's logs (work/); must be an absolute path")
	flag.StringVar(&o.BinDir, "bin-dir", "", "absolute folder with csi-provisioner and mock-csi-driver")
	flag.StringVar(&o.ControlPlaneDir, "control-plane-dir", "", "absolute folder with etcd, kube-apiserver and kube-controller-manager")
	rewrite := flag.Bool("rewrite-report", false, "write report.md and the plots of the run in --out-dir again from its result.json and logs, without running")
	flag.Parse()
	if *rewrite {
		os.Exit(rewriteReport(o.OutDir))
	}
	os.Exit(run(o))
}

func rewriteReport(dir string) int {
	res, err := soak.RewriteReport(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "soak: report of %s (%d claims) written again in %s\n", res.Started.UTC().Format(time.RFC3339), len(res.Claims), filepath.Join(dir, "report.md"))
	return 0
}

func run(o soak.Options) int {
	for _, dir := range []string{o.OutDir, o.BinDir, o.ControlPlaneDir} {
		if !filepath.IsAbs(dir) {
			fmt.Fprintf(os.Stderr, "soak: --out-dir, --bin-dir and --control-plane-dir must be absolute paths (make soak passes them)\n")
			return 2
		}
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		return 1
	}
	// The harness's own log (client-go's complaints while kube-apiserver
	// is down, each fault) goes to a file, which klog appends to; stderr
	// keeps the outcome.
	logFile := filepath.Join(o.OutDir, "soak.log")
	if err := os.Remove(logFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		return 1
	}
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "log_file": logFile} {
		if err := flag.Set(name, value); err != nil {
			fmt.Fprintf(os.Stderr, "soak: %v\n", err)
			return 1
		}
	}
	defer klog.Flush()
	// Ctrl-C stops the stack cleanly; its processes are in their own
	// process groups and do not see it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = klog.NewContext(ctx, klog.Background())

	fmt.Fprintf(os.Stderr, "soak: churning for %s (seed %d); log in %s\n", o.Duration, o.Seed, filepath.Join(o.OutDir, "soak.log"))
	res, err := soak.Run(ctx, o)
	if res != nil {
		if werr := soak.WriteReport(res, o.OutDir); werr != nil {
			fmt.Fprintf(os.Stderr, "soak: write the report: %v\n", werr)
			return 1
		}
		fmt.Fprintf(os.Stderr, "soak: report in %s\n", filepath.Join(o.OutDir, "report.md"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: FAIL: %v\n", err)
		return 1
	}
	if !res.Account.Clean() {
		fmt.Fprintf(os.Stderr, "soak: FAIL: %d leaked, %d stuck during the run, %d claims and %d PVs left, %d made twice%s\n",
			len(res.Account.Leaked), len(res.Account.StuckDuringRun), len(res.Account.ClaimsLeft), len(res.Account.PVsLeft), len(res.Account.Twice), notSettled(res.Account))
		return 1
	}
	fmt.Fprintf(os.Stderr, "soak: PASS: %d claims, %d faults, nothing leaked, stuck or made twice\n", len(res.Claims), len(res.Faults))
	return 0
}

func notSettled(a soak.Account) string {
	if a.NotSettled == "" {
		return ""
	}
	return "; " + a.NotSettled
}
