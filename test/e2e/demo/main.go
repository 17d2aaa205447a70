// Command demo shows csi-provisioner doing its job on a real, local control
// plane: it starts etcd, kube-apiserver and kube-controller-manager, the mock
// CSI driver and the sidecar (under the shipped RBAC), provisions a volume for
// a claim, deletes it again, and tears everything down.
//
// Run it with `make demo`, which builds what it needs first. It exits 0 when
// every step happened, and non-zero with the reason and the components' last
// log lines otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// config is the demo's command line.
type config struct {
	binDir          string
	controlPlaneDir string
	workDir         string
	keepWorkDir     bool
	driverName      string
	namespace       string
	sidecarV        int
	timeout         time.Duration
}

func main() {
	klog.InitFlags(nil)
	cfg := config{}
	flag.StringVar(&cfg.binDir, "bin-dir", "", "folder with csi-provisioner and mock-csi-driver (default: bin/ in the repository)")
	flag.StringVar(&cfg.controlPlaneDir, "control-plane-dir", "", "folder with etcd, kube-apiserver and kube-controller-manager (default: $"+framework.ControlPlaneDirEnv+" or _output/control-plane)")
	flag.StringVar(&cfg.workDir, "work-dir", "", "folder for data and logs (default: a new temporary folder, removed on success)")
	flag.BoolVar(&cfg.keepWorkDir, "keep-work-dir", false, "keep the work folder even on success")
	flag.StringVar(&cfg.driverName, "driver-name", mockdriver.DefaultName, "CSI driver name, used as the StorageClass provisioner")
	flag.StringVar(&cfg.namespace, "namespace", "default", "namespace of the claim and of the sidecar's ServiceAccount")
	flag.IntVar(&cfg.sidecarV, "sidecar-v", 4, "log verbosity of csi-provisioner (its -v)")
	flag.DurationVar(&cfg.timeout, "timeout", 3*time.Minute, "limit for the whole demo")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "demo: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	os.Exit(mainWithConfig(cfg))
}

func mainWithConfig(cfg config) int {
	defer klog.Flush()
	if err := cfg.complete(); err != nil {
		fmt.Fprintf(os.Stderr, "demo: FAIL: %v\n", err)
		return 1
	}
	// Ctrl-C ends the demo through the same teardown as a failure; the
	// components are in their own process groups and do not see it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.timeout, fmt.Errorf("the demo's --timeout of %s ran out", cfg.timeout))
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())

	d := newDemo(cfg, os.Stdout)
	err := d.run(ctx)
	if err != nil {
		fmt.Printf("\ndemo: FAIL: %v\n", err)
		d.printLogTails(os.Stdout, 25)
		fmt.Printf("demo: logs and data kept in %s\n", d.workDir)
		return 1
	}
	if d.removeWorkDir {
		if err := os.RemoveAll(d.workDir); err != nil {
			fmt.Fprintf(os.Stderr, "demo: could not remove %s: %v\n", d.workDir, err)
		}
	} else {
		fmt.Printf("demo: logs and data kept in %s\n", d.workDir)
	}
	fmt.Println("demo: PASS")
	return 0
}

// complete fills in defaults and checks that the programs exist, so a missing
// build is reported before anything starts.
func (c *config) complete() error {
	root, err := framework.RepoRoot()
	if err != nil {
		return err
	}
	if c.binDir == "" {
		c.binDir = filepath.Join(root, "bin")
	}
	if c.controlPlaneDir == "" {
		if c.controlPlaneDir, err = framework.DefaultControlPlaneDir(); err != nil {
			return err
		}
	}
	var errs []error
	for _, p := range []struct{ dir, name, how string }{
		{c.binDir, "csi-provisioner", "make build"},
		{c.binDir, "mock-csi-driver", "make build"},
		{c.controlPlaneDir, "etcd", "make e2e-tools"},
		{c.controlPlaneDir, "kube-apiserver", "make e2e-tools"},
		{c.controlPlaneDir, "kube-controller-manager", "make e2e-tools"},
	} {
		if _, err := os.Stat(filepath.Join(p.dir, p.name)); err != nil {
			errs = append(errs, fmt.Errorf("%s not found in %s: run `%s`", p.name, p.dir, p.how))
		}
	}
	return errors.Join(errs...)
}
