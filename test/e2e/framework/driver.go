package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
)

// DriverOptions configures the mock CSI driver process (cmd/mock-csi-driver).
// The zero value is a driver named mockdriver.DefaultName without faults.
type DriverOptions struct {
	// Name is the driver name (--name), which is also the StorageClass
	// provisioner. Defaults to mockdriver.DefaultName.
	Name string
	// NodeID is the node the driver reports (--node-id) and, with
	// Topology, the value of its topology segment. Defaults to the host
	// name, which is the driver's own default.
	NodeID string
	// Topology advertises accessibility constraints with the key
	// mockdriver.TopologyKey (--topology).
	Topology bool
	// CreateDelay and DeleteDelay are waited before every CreateVolume and
	// DeleteVolume; a call whose deadline ends first is abandoned without
	// side effects.
	CreateDelay time.Duration
	DeleteDelay time.Duration
	// CreateOutlivesCaller makes a CreateVolume whose caller gave up
	// during CreateDelay finish creating the volume anyway, as
	// thick-provisioning backends do (--create-outlives-caller).
	CreateOutlivesCaller bool
	// FailureRate (0..1) fails that share of CreateVolume and DeleteVolume
	// calls with FailureCode (a gRPC code name such as "InvalidArgument";
	// the driver's default is Unavailable).
	FailureRate float64
	FailureCode string
	// APIRateLimit throttles the backend's API past that many storage
	// calls a second, with bursts of APIRateBurst, failing the others with
	// APIRateCode (ResourceExhausted when empty); 0 is no limit.
	APIRateLimit float64
	APIRateBurst int
	APIRateCode  string
	// ExitAfterCalls makes the driver exit, without replying, after
	// performing the Nth CreateVolume, DeleteVolume, CreateSnapshot or
	// DeleteSnapshot (counted together: with snapshots on, csi-snapshotter's
	// calls count too).
	ExitAfterCalls int
	// Capacity and MaxVolumeSize limit the storage in bytes (0: no limit).
	// GetCapacity reports Capacity less what the volumes use.
	Capacity      int64
	MaxVolumeSize int64
	// Pools are named pools of storage with their size in bytes
	// (--pools=name=bytes,...), which a StorageClass selects with the
	// parameter PoolParameter; GetCapacity reports each pool's free
	// bytes for the classes that name it.
	Pools map[string]int64
	// CapacityMoving makes GetCapacity's answer move for a share of the
	// segments (--capacity-moving-share and the others; see
	// mockdriver.Moving, whose Now is ignored): a benchmark computes what
	// the driver answers at any time with mockdriver.MovingCapacity and
	// the same value. Off while its Share is 0.
	CapacityMoving mockdriver.Moving
	// Verbosity is the driver's -v. Defaults to 2, which logs every
	// CreateVolume and DeleteVolume with its outcome.
	Verbosity int
	// ExtraArgs are appended to the flags above.
	ExtraArgs []string
}

func (o DriverOptions) withDefaults() DriverOptions {
	if o.Name == "" {
		o.Name = mockdriver.DefaultName
	}
	if o.Verbosity == 0 {
		o.Verbosity = 2
	}
	return o
}

// args is the driver's command line for a socket and a state file.
func (o DriverOptions) args(socket, stateFile string) []string {
	args := []string{
		"--endpoint=unix://" + socket,
		"--name=" + o.Name,
		"--state-file=" + stateFile,
		"-v=" + strconv.Itoa(o.Verbosity),
	}
	if o.NodeID != "" {
		args = append(args, "--node-id="+o.NodeID)
	}
	if o.Topology {
		args = append(args, "--topology")
	}
	if o.CreateDelay > 0 {
		args = append(args, "--create-delay="+o.CreateDelay.String())
	}
	if o.CreateOutlivesCaller {
		args = append(args, "--create-outlives-caller")
	}
	if o.DeleteDelay > 0 {
		args = append(args, "--delete-delay="+o.DeleteDelay.String())
	}
	if o.FailureRate > 0 {
		args = append(args, "--failure-rate="+strconv.FormatFloat(o.FailureRate, 'g', -1, 64))
	}
	if o.FailureCode != "" {
		args = append(args, "--failure-code="+o.FailureCode)
	}
	if o.APIRateLimit > 0 {
		args = append(args, "--api-rate-limit="+strconv.FormatFloat(o.APIRateLimit, 'g', -1, 64))
	}
	if o.APIRateBurst > 0 {
		args = append(args, "--api-rate-burst="+strconv.Itoa(o.APIRateBurst))
	}
	if o.APIRateCode != "" {
		args = append(args, "--api-rate-code="+o.APIRateCode)
	}
	if o.ExitAfterCalls > 0 {
		args = append(args, "--exit-after-calls="+strconv.Itoa(o.ExitAfterCalls))
	}
	if o.Capacity > 0 {
		args = append(args, "--capacity="+strconv.FormatInt(o.Capacity, 10))
	}
	if o.MaxVolumeSize > 0 {
		args = append(args, "--max-volume-size="+strconv.FormatInt(o.MaxVolumeSize, 10))
	}
	if len(o.Pools) > 0 {
		pools := make([]string, 0, len(o.Pools))
		for _, name := range slices.Sorted(maps.Keys(o.Pools)) {
			pools = append(pools, name+"="+strconv.FormatInt(o.Pools[name], 10))
		}
		args = append(args, "--pools="+strings.Join(pools, ","))
	}
	if m := o.CapacityMoving; m.Share > 0 {
		args = append(args,
			"--capacity-moving-share="+strconv.FormatFloat(m.Share, 'g', -1, 64),
			"--capacity-moving-amplitude="+strconv.FormatFloat(m.Amplitude, 'g', -1, 64),
			"--capacity-moving-period="+m.Period.String(),
			"--capacity-moving-seed="+strconv.FormatInt(m.Seed, 10),
		)
	}
	return append(args, o.ExtraArgs...)
}

// PoolParameter is the StorageClass parameter that selects one of the
// driver's DriverOptions.Pools.
const PoolParameter = mockdriver.PoolParameter

// startDriver runs the stack's one mock driver (the stack without Nodes).
func (s *Stack) startDriver(ctx context.Context, opts DriverOptions) error {
	p, err := s.runDriver(ctx, "mock-csi-driver", s.socket, s.stateFile, filepath.Join(s.workDir, "mock-csi-driver.log"), opts)
	if err != nil {
		return err
	}
	s.driver = p
	s.driverOpts = opts
	return nil
}

// runDriver runs a mock driver and waits until its socket accepts
// connections and its state file exists, so the sidecar started next finds
// it and a test can count volumes (zero included) right away.
func (s *Stack) runDriver(ctx context.Context, name, socket, stateFile, logFile string, opts DriverOptions) (*Process, error) {
	p, err := StartProcess(ctx, ProcessOptions{
		Name:    name,
		Path:    filepath.Join(s.binDir, "mock-csi-driver"),
		Args:    opts.args(socket, stateFile),
		LogFile: logFile,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err = waitUntil(ctx, "the driver's socket and state file", p, func(context.Context) (bool, error) {
		st, err := os.Stat(socket)
		if err != nil || st.Mode()&os.ModeSocket == 0 {
			return false, fmt.Errorf("no socket at %s yet", socket)
		}
		if _, err := os.Stat(stateFile); err != nil {
			return false, err
		}
		return true, nil
	})
	if err != nil {
		p.Kill()
		return nil, err
	}
	return p, nil
}

// ReplaceDriver stops the driver (SIGTERM) and starts it again with new
// options on the same socket and state file, e.g. to end a fault: the
// backend "recovers" and keeps every volume it had. Like upstream, the
// sidecar exits once it notices that its driver connection was lost; restart
// it with Process.Restart, as the kubelet would.
func (s *Stack) ReplaceDriver(ctx context.Context, opts DriverOptions) error {
	if s.driver == nil {
		return errNodeDrivers
	}
	opts = opts.withDefaults()
	if opts.Name != s.driverOpts.Name {
		return fmt.Errorf("ReplaceDriver cannot rename the driver from %q to %q: PVs and the sidecar name the old one", s.driverOpts.Name, opts.Name)
	}
	if err := s.driver.Stop(); err != nil {
		return err
	}
	return s.startDriver(ctx, opts)
}

// DriverState is what the mock driver persisted: its volumes, and the most
// recent deletions with the secret keys DeleteVolume received.
type DriverState struct {
	Volumes   []mockdriver.Volume   `json:"volumes"`
	Deletions []mockdriver.Deletion `json:"deletions"`
}

// ReadDriverState reads a mock driver's state file from another process. The
// driver replaces the file atomically, so a read never sees a half-written
// state. A missing file is an empty state. The field names are the driver's
// file format (internal/mockdriver/state.go); mockdriver.ReadVolumes covers the
// volumes only.
func ReadDriverState(path string) (*DriverState, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &DriverState{}, nil
	}
	if err != nil {
		return nil, err
	}
	st := &DriverState{}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("driver state %s: %w", path, err)
	}
	return st, nil
}

// DriverVolumes returns the volumes the driver holds now.
func (s *Stack) DriverVolumes() ([]mockdriver.Volume, error) {
	if s.driver == nil {
		return nil, errNodeDrivers
	}
	return mockdriver.ReadVolumes(s.stateFile)
}

// DriverState returns the driver's persisted state now.
func (s *Stack) DriverState() (*DriverState, error) {
	if s.driver == nil {
		return nil, errNodeDrivers
	}
	return ReadDriverState(s.stateFile)
}

// errNodeDrivers is the answer of the one-driver accessors on a stack with
// StackOptions.Nodes: reading a state file nobody writes would look like an
// empty driver.
var errNodeDrivers = errors.New("the stack runs one driver per node (StackOptions.Nodes): use NodeDriverState")
