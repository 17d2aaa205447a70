package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SnapshotOptions configures the snapshot stack: the snapshot CRDs, a
// VolumeSnapshotClass of the mock driver, and the real snapshot-controller
// and csi-snapshotter from hack/build-snapshot-stack.sh (`make e2e-tools`),
// which StartStack sets up once the driver runs and before the sidecar
// starts, so that the sidecar finds the snapshot API at start-up.
//
// csi-snapshotter exits when the driver does not advertise
// CREATE_DELETE_SNAPSHOT, and, like the sidecar, when its driver connection
// is lost: after Stack.ReplaceDriver, restart it with
// Stack.Snapshotter().Restart.
type SnapshotOptions struct {
	// Enabled sets the snapshot stack up; without it the other fields are
	// ignored and the cluster has no snapshot API.
	Enabled bool
	// ClassName names the VolumeSnapshotClass. Defaults to the driver's
	// name.
	ClassName string
	// Verbosity is -v of both programs. Defaults to 4, which logs every
	// object they act on.
	Verbosity int
	// ControllerArgs and SnapshotterArgs are appended to the flags of
	// snapshot-controller and csi-snapshotter.
	ControllerArgs  []string
	SnapshotterArgs []string
	// StartTimeout bounds the wait for each program to start its
	// controller. Defaults to 60s.
	StartTimeout time.Duration
}

func (o SnapshotOptions) withDefaults(driverName string) SnapshotOptions {
	if o.ClassName == "" {
		o.ClassName = driverName
	}
	if o.Verbosity == 0 {
		o.Verbosity = 4
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	return o
}

// Messages the programs log once their CRD checks (and, for
// csi-snapshotter, the driver probe) passed and their controller runs.
const (
	snapshotControllerStartedMessage = "Starting snapshot controller"
	snapshotterStartedMessage        = "Starting CSI snapshotter"
)

// snapshotStack is the Stack's part for snapshots; the zero value means
// SnapshotOptions.Enabled was not set.
type snapshotStack struct {
	opts        SnapshotOptions
	client      snapclient.Interface
	controller  *Process
	snapshotter *Process
}

// processes lists the started snapshot processes, csi-snapshotter first
// since it is a client of the driver, like the sidecars.
func (ss *snapshotStack) processes() []*Process {
	var procs []*Process
	for _, p := range []*Process{ss.snapshotter, ss.controller} {
		if p != nil {
			procs = append(procs, p)
		}
	}
	return procs
}

// snapshotBinaries are the programs hack/build-snapshot-stack.sh builds.
var snapshotBinaries = []string{"snapshot-controller", "csi-snapshotter"}

// snapshotStackDir is where StartStack finds the snapshot programs and CRDs:
// next to the control plane.
func snapshotStackDir(opts ClusterOptions) (string, error) {
	if opts.BinDir != "" {
		return opts.BinDir, nil
	}
	return DefaultControlPlaneDir()
}

// checkSnapshotStack fails early, before a cluster is started for nothing,
// when `make e2e-tools` has not built the snapshot stack.
func checkSnapshotStack(opts ClusterOptions) error {
	dir, err := snapshotStackDir(opts)
	if err != nil {
		return err
	}
	if err := checkBinaries(dir, snapshotBinaries...); err != nil {
		return err
	}
	return checkSnapshotCRDs(dir)
}

// startSnapshots installs the CRDs and the class, then starts
// snapshot-controller and csi-snapshotter with the admin kubeconfig and
// waits until each runs its controller.
func (s *Stack) startSnapshots(ctx context.Context, opts SnapshotOptions) error {
	dir, err := snapshotStackDir(s.opts.Cluster)
	if err != nil {
		return err
	}
	if err := s.cluster.InstallSnapshotCRDs(ctx); err != nil {
		return err
	}
	client, err := snapclient.NewForConfig(s.cluster.RESTConfig())
	if err != nil {
		return err
	}
	s.snapshots.opts = opts
	s.snapshots.client = client
	if err := s.createSnapshotClass(ctx, opts.ClassName); err != nil {
		return err
	}

	kubeconfig := s.cluster.Kubeconfig()
	common := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-election=false",
		"-v=" + strconv.Itoa(opts.Verbosity),
		// The group snapshot CRDs are not installed; with the feature on,
		// snapshot-controller would wait for them (30s) before going on
		// without it.
		"--feature-gates=CSIVolumeGroupSnapshot=false",
		// Tests create objects in bursts; the default 5 QPS would only add
		// latency.
		"--kube-api-qps=100",
		"--kube-api-burst=200",
	}
	s.snapshots.controller, err = s.startSnapshotProcess(ctx, opts, "snapshot-controller", filepath.Join(dir, "snapshot-controller"),
		append(append([]string(nil), common...), opts.ControllerArgs...), snapshotControllerStartedMessage)
	if err != nil {
		return err
	}
	s.snapshots.snapshotter, err = s.startSnapshotProcess(ctx, opts, "csi-snapshotter", filepath.Join(dir, "csi-snapshotter"),
		append(append([]string{"--csi-address=" + s.socket}, common...), opts.SnapshotterArgs...), snapshotterStartedMessage)
	return err
}

// startSnapshotProcess starts one program and waits for its start message.
func (s *Stack) startSnapshotProcess(ctx context.Context, opts SnapshotOptions, name, path string, args []string, started string) (*Process, error) {
	logFile := filepath.Join(s.workDir, name+".log")
	p, err := StartProcess(ctx, ProcessOptions{Name: name, Path: path, Args: args, LogFile: logFile})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	if err := waitUntil(ctx, name+" to start its controller", p, fileContains(logFile, started)); err != nil {
		p.Kill()
		return nil, err
	}
	return p, nil
}

// createSnapshotClass creates the driver's VolumeSnapshotClass, with
// deletionPolicy Delete so that deleting a VolumeSnapshot deletes the
// driver's snapshot too.
func (s *Stack) createSnapshotClass(ctx context.Context, name string) error {
	class := &snapv1.VolumeSnapshotClass{
		ObjectMeta:     metav1.ObjectMeta{Name: name},
		Driver:         s.driverOpts.Name,
		DeletionPolicy: snapv1.VolumeSnapshotContentDelete,
	}
	_, err := s.snapshots.client.SnapshotV1().VolumeSnapshotClasses().Create(ctx, class, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create VolumeSnapshotClass %s: %w", name, err)
	}
	s.logger.V(2).Info("Created VolumeSnapshotClass", "name", name, "driver", class.Driver)
	return nil
}

// SnapshotClient returns an admin clientset of the snapshot API, or nil
// without SnapshotOptions.Enabled.
func (s *Stack) SnapshotClient() snapclient.Interface { return s.snapshots.client }

// SnapshotClassName returns the name of the driver's VolumeSnapshotClass,
// or "" without SnapshotOptions.Enabled.
func (s *Stack) SnapshotClassName() string {
	if s.snapshots.client == nil {
		return ""
	}
	return s.snapshots.opts.ClassName
}

// SnapshotController and Snapshotter return the snapshot-controller and
// csi-snapshotter processes, or nil without SnapshotOptions.Enabled.
func (s *Stack) SnapshotController() *Process { return s.snapshots.controller }
func (s *Stack) Snapshotter() *Process        { return s.snapshots.snapshotter }
