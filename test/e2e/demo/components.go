package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// demo holds the running components and what the steps learned.
type demo struct {
	cfg           config
	out           io.Writer
	start         time.Time
	workDir       string
	removeWorkDir bool

	socket    string
	stateFile string

	cluster *framework.Cluster
	driver  *framework.Process
	sidecar *framework.Process
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
// and the cluster.
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
	d.socket = filepath.Join(d.workDir, "csi.sock")
	d.stateFile = filepath.Join(d.workDir, "driver-state.json")
	// A unix socket path is limited to 107 bytes; say so instead of letting
	// the driver fail with a bind error.
	if len(d.socket) > 100 {
		return fmt.Errorf("work dir %s is too long for a unix socket path; pick a shorter --work-dir", d.workDir)
	}
	return nil
}

// startCluster starts the control plane with the PV binder and both
// protection controllers: the admission plugin puts their finalizers on every
// claim and volume, and without them neither could ever be deleted.
func (d *demo) startCluster(ctx context.Context) error {
	d.step("control plane: starting etcd, kube-apiserver, kube-controller-manager")
	c, err := framework.StartCluster(ctx, framework.ClusterOptions{
		BinDir:         d.cfg.controlPlaneDir,
		WorkDir:        filepath.Join(d.workDir, "cluster"),
		KCMControllers: []string{framework.ControllerPVProtection, framework.ControllerPVCProtection},
	})
	if err != nil {
		return fmt.Errorf("start control plane: %w", err)
	}
	d.cluster = c
	v, err := c.Client().Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("ask the apiserver its version: %w", err)
	}
	d.step("control plane: kube-apiserver %s ready at %s", v.GitVersion, c.Host())
	d.detail("kube-controller-manager runs %s", strings.Join([]string{framework.ControllerPVBinder, framework.ControllerPVProtection, framework.ControllerPVCProtection}, ", "))
	return nil
}

// startDriver runs the mock driver with a state file, so its volumes can be
// read from outside, and waits for its socket.
func (d *demo) startDriver(ctx context.Context) error {
	p, err := framework.StartProcess(ctx, framework.ProcessOptions{
		Name: "mock-csi-driver",
		Path: filepath.Join(d.cfg.binDir, "mock-csi-driver"),
		Args: []string{
			"--endpoint=unix://" + d.socket,
			"--name=" + d.cfg.driverName,
			"--state-file=" + d.stateFile,
			"-v=2",
		},
		LogFile: filepath.Join(d.workDir, "mock-csi-driver.log"),
	})
	if err != nil {
		return err
	}
	d.driver = p
	err = d.poll(ctx, 30*time.Second, "the driver's socket", func() (bool, error) {
		st, err := os.Stat(d.socket)
		return err == nil && st.Mode()&os.ModeSocket != 0, nil
	})
	if err != nil {
		return err
	}
	d.step("mock driver: %s serving on %s (pid %d)", d.cfg.driverName, d.socket, p.Pid())
	return nil
}

// startSidecar installs the shipped RBAC and runs csi-provisioner with a
// kubeconfig of its ServiceAccount, so the demo also proves that the RBAC
// grants everything provisioning and deletion need.
func (d *demo) startSidecar(ctx context.Context) error {
	install, err := d.cluster.InstallRBAC(ctx, framework.RBACOptions{
		Namespace:      d.cfg.namespace,
		KubeconfigPath: filepath.Join(d.workDir, "csi-provisioner.kubeconfig"),
	})
	if err != nil {
		return fmt.Errorf("install %s: %w", framework.RBACManifest, err)
	}
	d.step("RBAC: applied %s; the sidecar runs as system:serviceaccount:%s:%s", framework.RBACManifest, install.Namespace, install.ServiceAccount)

	p, err := framework.StartProcess(ctx, framework.ProcessOptions{
		Name: "csi-provisioner",
		Path: filepath.Join(d.cfg.binDir, "csi-provisioner"),
		Args: []string{
			"--csi-address=" + d.socket,
			"--kubeconfig=" + install.Kubeconfig,
			"--leader-election=false",
			"--timeout=30s",
			fmt.Sprintf("-v=%d", d.cfg.sidecarV),
		},
		LogFile: filepath.Join(d.workDir, "csi-provisioner.log"),
	})
	if err != nil {
		return err
	}
	d.sidecar = p
	d.step("sidecar: csi-provisioner started (pid %d), log in %s", p.Pid(), p.LogFile())
	return nil
}

// teardown stops the sidecar before the driver it calls, and both before
// the control plane, so no component logs errors about another one going
// away first.
func (d *demo) teardown() error {
	var errs []error
	for _, p := range []*framework.Process{d.sidecar, d.driver} {
		if p == nil {
			continue
		}
		if exited, exitErr := p.Exited(); exited {
			errs = append(errs, fmt.Errorf("%s had already exited (%v)", p.Name(), exitErr))
			continue
		}
		if err := p.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if d.cluster != nil {
		if err := d.cluster.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// poll checks cond every 250ms until it holds, the sidecar or driver exits,
// or the timeout or ctx ends. A component that died is the likelier cause
// of a wait that never ends, so that is reported first.
func (d *demo) poll(parent context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		for _, p := range []*framework.Process{d.driver, d.sidecar} {
			if p == nil {
				continue
			}
			if exited, exitErr := p.Exited(); exited {
				return fmt.Errorf("%s exited (%v) while waiting for %s", p.Name(), exitErr, what)
			}
		}
		select {
		case <-ctx.Done():
			// Say which limit ended the wait: this step's, or the whole
			// demo's (--timeout, Ctrl-C).
			msg := fmt.Sprintf("gave up waiting for %s after %s", what, timeout)
			if parent.Err() != nil {
				msg = fmt.Sprintf("stopped waiting for %s: %v", what, context.Cause(parent))
			}
			if last != nil {
				msg += fmt.Sprintf(" (last: %v)", last)
			}
			return errors.New(msg)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// maxLogLine is where printLogTails cuts long log lines.
const maxLogLine = 300

// printLogTails shows the end of each component's log after a failure.
func (d *demo) printLogTails(w io.Writer, n int) {
	logs := []string{}
	for _, p := range []*framework.Process{d.sidecar, d.driver} {
		if p != nil {
			logs = append(logs, p.LogFile())
		}
	}
	if d.cluster != nil {
		logs = append(logs, d.cluster.ControllerManager().LogFile())
	}
	for _, path := range logs {
		lines := framework.TailLog(path, n)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n--- last %d lines of %s\n", len(lines), path)
		for _, l := range lines {
			// The sidecar dumps whole objects at -v=4; the start of a
			// line is enough to see what happened.
			if len(l) > maxLogLine {
				l = l[:maxLogLine] + " [...]"
			}
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
