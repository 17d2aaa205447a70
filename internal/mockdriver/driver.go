// Package mockdriver is a CSI driver that keeps its volumes in memory and,
// optionally, in a JSON state file instead of on real storage. Unit tests
// serve it in-process over a unix socket; e2e tests and the demo run it as a
// separate process that can be killed and restarted. Delays, failures and
// crashes can be injected to exercise the provisioner's error handling.
package mockdriver

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
)

const (
	// DefaultName is the driver name used when Config.Name is empty.
	DefaultName = "mock.csi-protect.io"
	// TopologyKey is the only topology segment the driver reports; its value
	// is the node id.
	TopologyKey = "topology.mock.csi-protect.io/node"
	// VendorVersion is reported by GetPluginInfo.
	VendorVersion = "0.1.0"

	// defaultVolumeSize is used when a request leaves the size to the driver.
	defaultVolumeSize int64 = 1 << 30
	// fallbackNodeID is used when neither Config.NodeID nor the host name is
	// available.
	fallbackNodeID = "mock-node"
)

// driverNameRE is the rule CSI gives for plugin names (max 63 characters,
// starting and ending with an alphanumeric character).
var driverNameRE = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9._-]{0,61}[a-zA-Z0-9])?$`)

// Config describes one driver instance. The zero value is usable: an
// in-memory driver named DefaultName on a node named after the host.
type Config struct {
	// Name is reported by GetPluginInfo. Defaults to DefaultName.
	Name string
	// NodeID is reported by NodeGetInfo and is the value of the topology
	// segment. Defaults to the host name.
	NodeID string
	// StateFile is where volumes are persisted after every change. Empty
	// keeps them in memory only.
	StateFile string
	// Topology advertises VOLUME_ACCESSIBILITY_CONSTRAINTS and gives every
	// volume an accessible topology.
	Topology bool
	// Capacity is the size in bytes of the default pool, the one used by
	// volumes without a PoolParameter; 0 means unlimited. With Topology
	// every node (every value of TopologyKey) has a pool of this size of
	// its own. When set, GET_CAPACITY is advertised and CreateVolume fails
	// with ResourceExhausted once the pool of the chosen node is used up.
	Capacity int64
	// Pools are named pools, selected with the PoolParameter, and their
	// sizes in bytes per node as for Capacity. Names must not be empty and
	// sizes must be positive. Any pool advertises GET_CAPACITY.
	Pools map[string]int64
	// MaxVolumeSize caps a single volume; 0 means no cap. Larger requests
	// fail with OutOfRange.
	MaxVolumeSize int64
	// DisableSnapshots hides CREATE_DELETE_SNAPSHOT and LIST_SNAPSHOTS and
	// refuses the snapshot calls, like a driver without snapshots.
	DisableSnapshots bool
	// DisableModifyVolume hides MODIFY_VOLUME and refuses mutable
	// parameters, like a driver that cannot change a volume's attributes.
	DisableModifyVolume bool
	// Faults injects delays, errors and crashes into CreateVolume,
	// DeleteVolume, CreateSnapshot and DeleteSnapshot.
	Faults Faults
	// Moving makes GetCapacity's answer move over time for a share of
	// the segments; the zero value keeps it still.
	Moving Moving
}

// Driver is a CSI identity, controller and node service backed by a
// Volume list. All methods are safe for concurrent use.
type Driver struct {
	name          string
	nodeID        string
	topology      bool
	capacity      int64
	pools         map[string]int64
	maxVolumeSize int64
	snapshots     bool
	modifyVolume  bool
	faults        Faults
	moving        Moving

	// mu guards state and serialises state-file writes, so the file always
	// reflects a state the driver actually held.
	mu        sync.Mutex
	state     *state
	stateFile string

	randMu sync.Mutex

	callsMu sync.Mutex
	calls   map[string]int

	// creating holds the names whose CreateVolume runs in the backend,
	// also after its caller gave up (Faults.CreateOutlivesCaller).
	creating sync.Map

	// quota throttles the storage-changing calls (Faults.RateLimit); nil
	// for none. throttled counts the calls it refused.
	quota     *apiQuota
	throttled atomic.Int64

	// mutatingCalls counts CreateVolume, DeleteVolume, CreateSnapshot and
	// DeleteSnapshot calls for Faults.ExitAfterCalls.
	mutatingCalls atomic.Int64
	// crashed is set once the exit func has been called; from then on the
	// driver never replies, like a dead process.
	crashed atomic.Bool
	serving atomic.Bool
}

// New validates cfg, fills in defaults and loads the state file if one is
// configured. A state file that exists but cannot be parsed is an error:
// silently starting empty would make volumes vanish.
func New(cfg Config) (*Driver, error) {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if !driverNameRE.MatchString(cfg.Name) {
		return nil, fmt.Errorf("invalid driver name %q: must be at most 63 alphanumeric, '.', '-' or '_' characters, starting and ending with an alphanumeric one", cfg.Name)
	}
	if cfg.NodeID == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = fallbackNodeID
		}
		cfg.NodeID = host
	}
	if cfg.Capacity < 0 {
		return nil, errors.New("invalid capacity: must not be negative")
	}
	for name, size := range cfg.Pools {
		if name == "" {
			return nil, errors.New("invalid pool: the name must not be empty")
		}
		if size <= 0 {
			return nil, fmt.Errorf("invalid pool %q: the size must be positive", name)
		}
	}
	if cfg.MaxVolumeSize < 0 {
		return nil, errors.New("invalid maximum volume size: must not be negative")
	}
	faults, err := cfg.Faults.withDefaults()
	if err != nil {
		return nil, err
	}
	moving, err := cfg.Moving.withDefaults()
	if err != nil {
		return nil, err
	}

	d := &Driver{
		name:          cfg.Name,
		nodeID:        cfg.NodeID,
		topology:      cfg.Topology,
		capacity:      cfg.Capacity,
		pools:         maps.Clone(cfg.Pools),
		maxVolumeSize: cfg.MaxVolumeSize,
		faults:        faults,
		moving:        moving,
		quota:         newAPIQuota(faults.RateLimit),
		snapshots:     !cfg.DisableSnapshots,
		modifyVolume:  !cfg.DisableModifyVolume,
		state:         newState(),
		stateFile:     cfg.StateFile,
		calls:         map[string]int{},
	}
	if cfg.StateFile != "" {
		st, err := loadState(cfg.StateFile)
		if err != nil {
			return nil, err
		}
		d.state = st
		// Write the file right away so another process can count volumes
		// (zero included) as soon as the driver has started.
		if err := d.saveLocked(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Throttled is how many calls the API rate limit refused.
func (d *Driver) Throttled() int64 { return d.throttled.Load() }

// Name is the driver name reported by GetPluginInfo.
func (d *Driver) Name() string { return d.name }

// NodeID is the node id reported by NodeGetInfo.
func (d *Driver) NodeID() string { return d.nodeID }

// Volumes returns a copy of the existing volumes in creation order.
func (d *Driver) Volumes() []Volume {
	d.mu.Lock()
	defer d.mu.Unlock()
	return cloneAll(d.state.Volumes)
}

func (d *Driver) hasVolumeNamed(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state.volumeByName(name) != nil
}

// Publications returns a copy of the recorded NodePublishVolume calls that
// have not been unpublished.
func (d *Driver) Publications() []Publication {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Publication, len(d.state.Publications))
	copy(out, d.state.Publications)
	return out
}

// Deletions returns a copy of the most recent volume deletions, oldest
// first, so tests can check what DeleteVolume received.
func (d *Driver) Deletions() []Deletion {
	d.mu.Lock()
	defer d.mu.Unlock()
	return cloneAll(d.state.Deletions)
}

// Calls returns how many times the named CSI method has been called, for
// example Calls("CreateVolume"). Failed and unanswered calls count too.
func (d *Driver) Calls(method string) int {
	d.callsMu.Lock()
	defer d.callsMu.Unlock()
	return d.calls[method]
}

// CallCounts returns a copy of all call counters, keyed by method name.
func (d *Driver) CallCounts() map[string]int {
	d.callsMu.Lock()
	defer d.callsMu.Unlock()
	out := make(map[string]int, len(d.calls))
	for k, v := range d.calls {
		out[k] = v
	}
	return out
}

func (d *Driver) countCall(method string) {
	d.callsMu.Lock()
	d.calls[method]++
	d.callsMu.Unlock()
}

// nodeTopology is the topology segment of this driver's node.
func (d *Driver) nodeTopology() map[string]string {
	return map[string]string{TopologyKey: d.nodeID}
}

// sortedKeys returns the keys of m in order; used to record secret names
// without their values.
func sortedKeys(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
