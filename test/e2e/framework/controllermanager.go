package framework

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// kube-controller-manager controller names (its --controllers values) that
// matter to provisioning.
const (
	// ControllerPVBinder binds claims to volumes and hands claims of
	// external provisioners to them. Always started.
	ControllerPVBinder = "persistentvolume-binder-controller"
	// ControllerPVProtection removes kubernetes.io/pv-protection from a
	// deleted PV once no claim is bound to it. Without it (the admission
	// plugin still adds the finalizer), a deleted PV never goes away.
	ControllerPVProtection = "persistentvolume-protection-controller"
	// ControllerPVCProtection removes kubernetes.io/pvc-protection from a
	// deleted claim once no pod uses it.
	ControllerPVCProtection = "persistentvolumeclaim-protection-controller"
)

// binderStartedMessage is what the PV binder logs once it starts; it then
// lists PVs, claims and classes before acting, so nothing created after this
// line is missed.
const binderStartedMessage = "Starting persistent volume controller"

// kcmOptions configures kube-controller-manager.
type kcmOptions struct {
	binary      string
	workDir     string
	kubeconfig  string
	controllers []string
	extraArgs   []string
	stopTimeout time.Duration
}

// kcmControllers is the --controllers list: the binder plus the requested
// ones, without duplicates.
func kcmControllers(extra []string) []string {
	list := []string{ControllerPVBinder}
	for _, c := range extra {
		if !slices.Contains(list, c) {
			list = append(list, c)
		}
	}
	return list
}

// startKCM runs kube-controller-manager with only the given controllers and
// waits until the PV binder has started. It serves nothing (--secure-port=0),
// so its log is the only sign of progress.
func startKCM(ctx context.Context, opts kcmOptions) (*Process, error) {
	args := []string{
		"--kubeconfig=" + opts.kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=" + strings.Join(opts.controllers, ","),
	}
	args = append(args, opts.extraArgs...)
	logFile := filepath.Join(opts.workDir, "kube-controller-manager.log")
	proc, err := StartProcess(ctx, ProcessOptions{
		Name:        "kube-controller-manager",
		Path:        opts.binary,
		Args:        args,
		LogFile:     logFile,
		StopTimeout: opts.stopTimeout,
	})
	if err != nil {
		return nil, err
	}
	if err := waitUntil(ctx, "the PV binder to start", proc, fileContains(logFile, binderStartedMessage)); err != nil {
		proc.Kill()
		return nil, err
	}
	return proc, nil
}

// RestartControllerManager starts kube-controller-manager again, after
// ControllerManager().Stop() or while it runs, with the same flags, and
// waits until its PV binder has started, as StartCluster does. Stopping it
// for a while lets a test write many objects in their final state without
// the binder acting on each half-written one.
func (c *Cluster) RestartControllerManager(ctx context.Context) error {
	logFile := c.kcm.LogFile()
	// The log is appended to, so only a start message after the ones
	// already there counts.
	before, err := countInFile(logFile, binderStartedMessage)
	if err != nil {
		return err
	}
	if err := c.kcm.Restart(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	return waitUntil(ctx, "the PV binder to start again", c.kcm, func(context.Context) (bool, error) {
		n, err := countInFile(logFile, binderStartedMessage)
		return n > before, err
	})
}

// countInFile counts the occurrences of s in a file.
func countInFile(path, s string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return bytes.Count(data, []byte(s)), nil
}
