package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// demo holds the running stack and what the steps learned.
type demo struct {
	cfg           config
	out           io.Writer
	start         time.Time
	workDir       string
	removeWorkDir bool

	stack *framework.Stack
}

func newDemo(cfg config, out io.Writer) *demo {
	return &demo{cfg: cfg, out: out, start: time.Now()}
}

// step prints one line of the demo's story with the time since the start.
func (d *demo) step(format string, args ...any) {
	fmt.Fprintf(d.out, "[%5.1fs] %s\n", time.Since(d.start).Seconds(), fmt.Sprintf(format, args...))
}

// detail prints an indented line under the last step.
func (d *demo) detail(format string, args ...any) {
	fmt.Fprintf(d.out, "         %s\n", fmt.Sprintf(format, args...))
}

// prepareWorkDir creates the folder for logs, the driver's socket and state,
// and the cluster. The demo owns it, so it can keep it after a failure.
func (d *demo) prepareWorkDir() error {
	d.workDir = d.cfg.workDir
	if d.workDir == "" {
		dir, err := os.MkdirTemp("", "csi-demo-")
		if err != nil {
			return err
		}
		d.workDir = dir
		d.removeWorkDir = !d.cfg.keepWorkDir
	} else if err := os.MkdirAll(d.workDir, 0o755); err != nil {
		return err
	}
	return nil
}

// startStack starts the control plane, the mock driver with a state file
// (so its volumes can be read from outside) and the sidecar under the
// shipped RBAC, so the demo also proves that the RBAC grants everything
// provisioning and deletion need.
func (d *demo) startStack(ctx context.Context) error {
	d.step("starting etcd, kube-apiserver, kube-controller-manager, the mock driver and csi-provisioner")
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:    d.cfg.binDir,
		WorkDir:   d.workDir,
		Namespace: d.cfg.namespace,
		Cluster:   framework.ClusterOptions{BinDir: d.cfg.controlPlaneDir},
		Driver:    framework.DriverOptions{Name: d.cfg.driverName},
		Sidecar:   framework.SidecarOptions{Verbosity: d.cfg.sidecarV},
	})
	if err != nil {
		return err
	}
	d.stack = s
	c := s.Cluster()
	v, err := c.Client().Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("ask the apiserver its version: %w", err)
	}
	d.step("control plane: kube-apiserver %s ready at %s", v.GitVersion, c.Host())
	d.detail("kube-controller-manager runs %s", strings.Join([]string{framework.ControllerPVBinder, framework.ControllerPVProtection, framework.ControllerPVCProtection}, ", "))
	d.step("mock driver: %s serving on %s (pid %d)", s.DriverName(), s.Socket(), s.Driver().Pid())
	rbac := s.RBAC()
	d.step("RBAC: applied %s; the sidecar runs as system:serviceaccount:%s:%s", framework.RBACManifest, rbac.Namespace, rbac.ServiceAccount)
	d.step("sidecar: csi-provisioner started (pid %d), log in %s", s.Sidecar().Pid(), s.Sidecar().LogFile())
	return nil
}

// teardown stops the sidecar, the driver and the control plane, in that
// order, and fails if a component had died or anything is left behind.
func (d *demo) teardown() error {
	if d.stack == nil {
		return nil
	}
	return d.stack.Stop()
}

// poll waits for cond with the stack's WaitFor: a component that died ends
// the wait at once, with its last log lines.
func (d *demo) poll(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	return d.stack.WaitFor(ctx, timeout, what, func(context.Context) (bool, error) { return cond() })
}

// printLogTails shows the end of each component's log after a failure.
func (d *demo) printLogTails(w io.Writer, n int) {
	if d.stack != nil {
		d.stack.WriteLogTails(w, n)
	}
}
