package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// SidecarOptions configures the csi-provisioner processes.
type SidecarOptions struct {
	// Replicas is the number of sidecar processes; more than one only
	// makes sense with LeaderElection. Defaults to 1.
	Replicas int
	// AsAdmin runs the sidecar with the cluster's admin kubeconfig. By
	// default it runs as the ServiceAccount of the shipped RBAC
	// (RBACManifest), so every use of the stack also checks that the RBAC
	// grants what the sidecar does.
	AsAdmin bool
	// Timeout is --timeout, the bound of each CSI call. Defaults to 30s,
	// more than upstream's 10s, so a loaded test machine does not turn a
	// slow call into a retry nobody asked for.
	Timeout time.Duration
	// LeaderElection, if set, runs the replicas with --leader-election in
	// the stack's namespace (where the shipped Role grants Leases).
	LeaderElection *LeaderElectionOptions
	// Verbosity is the sidecar's -v. Defaults to 4.
	Verbosity int
	// ExtraArgs are appended to the flags above, e.g. "--strict-topology"
	// or "--retry-interval-max=2s".
	ExtraArgs []string
	// ExtraRBACManifests are installed with the shipped RBAC, e.g.
	// VolumeProtectionRBACManifest for a sidecar with PVC protection on.
	ExtraRBACManifests []string
}

// LeaderElectionOptions are the Lease timings. The defaults are far below
// upstream's (15s, 10s, 5s) so that a test sees a takeover in seconds.
type LeaderElectionOptions struct {
	// LeaseDuration defaults to 6s.
	LeaseDuration time.Duration
	// RenewDeadline defaults to 4s.
	RenewDeadline time.Duration
	// RetryPeriod defaults to 1s.
	RetryPeriod time.Duration
}

func (o SidecarOptions) withDefaults() SidecarOptions {
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Verbosity == 0 {
		o.Verbosity = 4
	}
	if le := o.LeaderElection; le != nil {
		c := *le
		if c.LeaseDuration <= 0 {
			c.LeaseDuration = 6 * time.Second
		}
		if c.RenewDeadline <= 0 {
			c.RenewDeadline = 4 * time.Second
		}
		if c.RetryPeriod <= 0 {
			c.RetryPeriod = time.Second
		}
		o.LeaderElection = &c
	}
	return o
}

// args is the sidecar's command line.
func (o SidecarOptions) args(socket, kubeconfig, namespace string) []string {
	args := []string{
		"--csi-address=" + socket,
		"--kubeconfig=" + kubeconfig,
		"--timeout=" + o.Timeout.String(),
		"-v=" + strconv.Itoa(o.Verbosity),
	}
	if le := o.LeaderElection; le != nil {
		args = append(args,
			"--leader-election=true",
			"--leader-election-namespace="+namespace,
			"--leader-election-lease-duration="+le.LeaseDuration.String(),
			"--leader-election-renew-deadline="+le.RenewDeadline.String(),
			"--leader-election-retry-period="+le.RetryPeriod.String(),
		)
	} else {
		args = append(args, "--leader-election=false")
	}
	return append(args, o.ExtraArgs...)
}

// startSidecars installs the shipped RBAC (unless AsAdmin) and starts the
// replicas. It does not wait for them to be ready: they list every claim
// when they start, so nothing created before that is missed, and tests wait
// for outcomes anyway.
func (s *Stack) startSidecars(ctx context.Context, opts SidecarOptions) error {
	kubeconfig := s.cluster.Kubeconfig()
	s.sidecarUser = adminUser
	if !opts.AsAdmin {
		install, err := s.cluster.InstallRBAC(ctx, RBACOptions{
			Namespace:      s.namespace,
			ExtraManifests: opts.ExtraRBACManifests,
			KubeconfigPath: filepath.Join(s.workDir, "csi-provisioner.kubeconfig"),
		})
		if err != nil {
			return fmt.Errorf("install %s: %w", RBACManifest, err)
		}
		s.rbac = install
		kubeconfig = install.Kubeconfig
		s.sidecarUser = "system:serviceaccount:" + install.Namespace + ":" + install.ServiceAccount
	}
	args := opts.args(s.socket, kubeconfig, s.namespace)
	for i := range opts.Replicas {
		name := "csi-provisioner"
		if opts.Replicas > 1 {
			name = fmt.Sprintf("csi-provisioner-%d", i)
		}
		p, err := StartProcess(ctx, ProcessOptions{
			Name: name,
			Path: filepath.Join(s.binDir, "csi-provisioner"),
			Args: args,
			// The sidecar prefers $KUBECONFIG over --kubeconfig, as
			// upstream does; a developer's own cluster in the
			// environment must not be the one it talks to.
			Env:     []string{"KUBECONFIG=" + kubeconfig},
			LogFile: filepath.Join(s.workDir, name+".log"),
		})
		if err != nil {
			return err
		}
		s.sidecars = append(s.sidecars, p)
	}
	return nil
}
