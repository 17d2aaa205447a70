package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// StackOptions configures StartStack. The zero value is the demo's setup:
// the control plane with the PV binder and both protection controllers, a
// mock driver without faults, and one sidecar under the shipped RBAC.
type StackOptions struct {
	// BinDir holds csi-provisioner and mock-csi-driver (`make build`).
	// Defaults to DefaultBinDir().
	BinDir string
	// WorkDir receives the driver's socket and state, the kubeconfigs, the
	// cluster (in WorkDir/cluster) and one log file per component. A given
	// WorkDir is never removed. Empty means a new temporary directory,
	// which Stop removes after a clean stop unless KeepWorkDir is set.
	WorkDir     string
	KeepWorkDir bool
	// Namespace holds the sidecar's ServiceAccount and its leader-election
	// Lease. Defaults to "default", the shipped manifest's.
	Namespace string
	// Cluster configures the control plane. Its WorkDir is ignored.
	// KCMControllers defaults to ControllerPVProtection and
	// ControllerPVCProtection: the admission plugins put their finalizers
	// on every PV and claim, and without them neither could be deleted.
	// Use []string{ControllerPVBinder} for the binder alone.
	Cluster ClusterOptions
	// Driver configures the mock CSI driver.
	Driver DriverOptions
	// Sidecar configures the csi-provisioner replicas.
	Sidecar SidecarOptions
	// Snapshots sets up the snapshot API, snapshot-controller and
	// csi-snapshotter before the sidecar starts.
	Snapshots SnapshotOptions
	// Nodes, if set, makes the stack a distributed one: instead of one
	// driver and central sidecars, every named node gets a Node and a
	// CSINode object (see Cluster.CreateNodes), its own mock driver
	// (Driver with NodeID the node's name and Topology on; socket, state
	// file and log in WorkDir/<node>/) and its own sidecar with
	// --node-deployment and NODE_NAME=<node> besides Sidecar's flags
	// (see StartNodeSidecar). Sidecar.Replicas, Sidecar.LeaderElection and
	// Snapshots are refused with Nodes. NodeNames(n) names n nodes.
	Nodes []string
}

// Stack is a running control plane, mock driver and sidecar(s): everything
// csi-provisioner needs, as separate processes talking over a real unix
// socket and the real API.
type Stack struct {
	opts       StackOptions
	logger     klog.Logger
	binDir     string
	workDir    string
	removeWork bool
	namespace  string
	socket     string
	stateFile  string

	cluster    *Cluster
	driver     *Process
	driverOpts DriverOptions
	sidecars   []*Process
	// nodes are StackOptions.Nodes, in order, with their drivers and
	// sidecars.
	nodes []*stackNode
	// workloads are the owner objects of the sidecars' Pod objects, by
	// kind (SidecarOptions.Workload).
	workloads map[WorkloadKind]*Workload
	snapshots snapshotStack
	// exitingSidecars counts StartSidecarExpectingExit's processes, to
	// name their logs.
	exitingSidecars int
	rbac            *RBACInstall
	sidecarUser     string
	// rbacManifest is the main RBAC manifest installed, relative to the
	// repository root unless absolute.
	rbacManifest string
	// rbacManifests are the extra RBAC manifests installed with rbac.
	rbacManifests []string

	stopOnce sync.Once
	stopErr  error
}

// StartStack starts the control plane, then the driver, then the sidecar
// replicas. On error everything already started is stopped again.
func StartStack(ctx context.Context, opts StackOptions) (_ *Stack, err error) {
	logger := klog.FromContext(ctx)
	s := &Stack{opts: opts, logger: logger, binDir: opts.BinDir, workDir: opts.WorkDir, namespace: opts.Namespace}
	if s.binDir == "" {
		if s.binDir, err = DefaultBinDir(); err != nil {
			return nil, err
		}
	}
	if err := checkBinaries(s.binDir, "csi-provisioner", "mock-csi-driver"); err != nil {
		return nil, fmt.Errorf("%w (binaries: `make build`)", err)
	}
	if opts.Snapshots.Enabled {
		if err := checkSnapshotStack(opts.Cluster); err != nil {
			return nil, err
		}
	}
	if s.namespace == "" {
		s.namespace = "default"
	}
	if len(opts.Nodes) > 0 {
		if err := checkNodeOptions(opts); err != nil {
			return nil, err
		}
	}
	if s.workDir == "" {
		if s.workDir, err = os.MkdirTemp("", "csi-e2e-"); err != nil {
			return nil, err
		}
		s.removeWork = !opts.KeepWorkDir
	} else if err := os.MkdirAll(s.workDir, 0o755); err != nil {
		return nil, err
	}
	s.socket = filepath.Join(s.workDir, "csi.sock")
	s.stateFile = filepath.Join(s.workDir, "driver-state.json")
	// A unix socket path is limited to 107 bytes; say so instead of letting
	// the driver fail with a bind error.
	if len(s.socket) > 100 {
		return nil, fmt.Errorf("work dir %s is too long for a unix socket path; use a shorter one", s.workDir)
	}
	defer func() {
		if err != nil {
			// Stop's error would hide the start-up one, which says more.
			_ = s.Stop()
		}
	}()

	start := time.Now()
	copts := opts.Cluster
	copts.WorkDir = filepath.Join(s.workDir, "cluster")
	if copts.KCMControllers == nil {
		copts.KCMControllers = []string{ControllerPVProtection, ControllerPVCProtection}
	}
	if s.cluster, err = StartCluster(ctx, copts); err != nil {
		return nil, fmt.Errorf("start control plane: %w", err)
	}
	if len(opts.Nodes) > 0 {
		if err := s.startNodes(ctx, opts); err != nil {
			return nil, err
		}
		logger.V(1).Info("Stack started", "workDir", s.workDir, "driver", s.driverOpts.Name, "nodes", opts.Nodes, "sidecarUser", s.sidecarUser, "duration", time.Since(start).Round(time.Millisecond))
		return s, nil
	}
	if err := s.startDriver(ctx, opts.Driver.withDefaults()); err != nil {
		return nil, fmt.Errorf("start mock driver: %w", err)
	}
	if opts.Snapshots.Enabled {
		if err := s.startSnapshots(ctx, opts.Snapshots.withDefaults(s.driverOpts.Name)); err != nil {
			return nil, fmt.Errorf("start snapshot stack: %w", err)
		}
	}
	if err := s.startSidecars(ctx, opts.Sidecar.withDefaults()); err != nil {
		return nil, fmt.Errorf("start csi-provisioner: %w", err)
	}
	logger.V(1).Info("Stack started", "workDir", s.workDir, "driver", s.driverOpts.Name, "sidecars", len(s.sidecars), "sidecarUser", s.sidecarUser, "duration", time.Since(start).Round(time.Millisecond))
	return s, nil
}

// Cluster returns the control plane.
func (s *Stack) Cluster() *Cluster { return s.cluster }

// Client returns an admin clientset: what a user or the scheduler would do.
func (s *Stack) Client() kubernetes.Interface { return s.cluster.Client() }

// WorkDir returns the directory with the logs, socket and state.
func (s *Stack) WorkDir() string { return s.workDir }

// Namespace returns the namespace of the sidecar's ServiceAccount and Lease.
func (s *Stack) Namespace() string { return s.namespace }

// DriverName returns the driver name, the provisioner of StorageClasses.
func (s *Stack) DriverName() string { return s.driverOpts.Name }

// DriverOptions returns the options the driver runs with now, defaults
// filled in.
func (s *Stack) DriverOptions() DriverOptions { return s.driverOpts }

// Socket returns the path of the driver's unix socket; with Nodes see
// NodeSocket.
func (s *Stack) Socket() string { return s.socket }

// StateFile returns the path of the driver's state file; with Nodes see
// NodeStateFile.
func (s *Stack) StateFile() string { return s.stateFile }

// Driver returns the mock driver process, nil with Nodes (see NodeDriver).
// ReplaceDriver swaps it.
func (s *Stack) Driver() *Process { return s.driver }

// Sidecar returns the first (with one replica, the only) sidecar process,
// or nil while none was started (SidecarOptions.Deferred). The sidecars of
// Nodes are not among these; see NodeSidecar.
func (s *Stack) Sidecar() *Process {
	if len(s.sidecars) == 0 {
		return nil
	}
	return s.sidecars[0]
}

// Sidecars returns every sidecar process, in the order they were started,
// stopped ones included.
func (s *Stack) Sidecars() []*Process { return append([]*Process(nil), s.sidecars...) }

// RBAC returns the installed RBAC, or nil when the sidecar runs as admin.
func (s *Stack) RBAC() *RBACInstall { return s.rbac }

// RBACManifest returns the main RBAC manifest the sidecar runs under
// (RBACManifest unless SidecarOptions.RBACManifest replaced it), or "" when
// it runs as admin.
func (s *Stack) RBACManifest() string { return s.rbacManifest }

// SidecarUser returns the user name the sidecar authenticates as (the one
// started last), which is how its requests appear in the audit log.
func (s *Stack) SidecarUser() string { return s.sidecarUser }

// processes lists the started processes: sidecars, csi-snapshotter,
// snapshot-controller, drivers, control plane.
func (s *Stack) processes() []*Process {
	procs := s.ownProcesses()
	if s.cluster != nil {
		for _, p := range []*Process{s.cluster.ControllerManager(), s.cluster.APIServer(), s.cluster.Etcd()} {
			if p != nil {
				procs = append(procs, p)
			}
		}
	}
	return procs
}

// CheckAlive returns an error for every component that exited on its own,
// i.e. not through Stop, Kill or Restart.
func (s *Stack) CheckAlive() error {
	var errs []error
	for _, p := range s.processes() {
		if err := p.UnexpectedExit(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Stop stops the sidecars and the snapshot programs, then the driver they
// call, then the control plane, and checks that no process of the stack is
// left. A component that had exited on its own is reported as an error too.
// It is safe to call more than once; later calls return the first result.
func (s *Stack) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

// ownProcesses lists the processes the stack started besides the control
// plane, clients before the drivers they call: sidecars (the central ones,
// then the nodes'), csi-snapshotter, snapshot-controller, drivers.
func (s *Stack) ownProcesses() []*Process {
	procs := append([]*Process(nil), s.sidecars...)
	for _, n := range s.nodes {
		if n.sidecar != nil {
			procs = append(procs, n.sidecar)
		}
	}
	procs = append(procs, s.snapshots.processes()...)
	if s.driver != nil {
		procs = append(procs, s.driver)
	}
	for _, n := range s.nodes {
		if n.driver != nil {
			procs = append(procs, n.driver)
		}
	}
	return procs
}

func (s *Stack) stop() error {
	var errs []error
	own := s.ownProcesses()
	for _, p := range own {
		if err := p.UnexpectedExit(); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := p.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.cluster != nil {
		if err := s.cluster.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range own {
		// Signal 0 only asks whether a member of the group still exists.
		if err := syscall.Kill(-p.Pid(), 0); err == nil {
			errs = append(errs, fmt.Errorf("%s (process group %d) still exists after stop", p.Name(), p.Pid()))
		}
	}
	err := errors.Join(errs...)
	if err == nil && s.removeWork {
		err = os.RemoveAll(s.workDir)
	}
	if err != nil {
		s.logger.Error(err, "Stack did not stop cleanly", "workDir", s.workDir)
	} else {
		s.logger.V(1).Info("Stack stopped", "workDir", s.workDir)
	}
	return err
}
