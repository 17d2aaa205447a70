package mockdriver

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

// nodeTopo is a topology segment naming node under TopologyKey.
func nodeTopo(node string) *csi.Topology {
	return &csi.Topology{Segments: map[string]string{TopologyKey: node}}
}

// createOn asks for a volume in pool on node; empty values leave the choice
// to the driver.
func createOn(name string, size int64, pool, node string) *csi.CreateVolumeRequest {
	req := createReq(name, size)
	if pool != "" {
		req.Parameters = map[string]string{PoolParameter: pool}
	}
	if node != "" {
		req.AccessibilityRequirements = &csi.TopologyRequirement{Requisite: []*csi.Topology{nodeTopo(node)}}
	}
	return req
}

// capacityOf calls GetCapacity for pool on node; empty values leave out
// the parameter or the topology.
func capacityOf(t *testing.T, td *testDriver, pool, node string) *csi.GetCapacityResponse {
	t.Helper()
	req := &csi.GetCapacityRequest{
		VolumeCapabilities: []*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)},
	}
	if pool != "" {
		req.Parameters = map[string]string{PoolParameter: pool}
	}
	if node != "" {
		req.AccessibleTopology = nodeTopo(node)
	}
	resp, err := td.controller.GetCapacity(callCtx(t), req)
	if err != nil {
		t.Fatalf("GetCapacity(pool %q, node %q): %v", pool, node, err)
	}
	return resp
}

func wantAvailable(t *testing.T, td *testDriver, pool, node string, want int64) {
	t.Helper()
	if got := capacityOf(t, td, pool, node).GetAvailableCapacity(); got != want {
		t.Fatalf("pool %q on node %q: %d bytes available, want %d", pool, node, got, want)
	}
}

func TestCapacityPerNodeShrinksAndGrows(t *testing.T) {
	td := startDriver(t, Config{NodeID: "node-a", Topology: true, Capacity: 10 * gib})
	onB := mustCreate(t, td, createOn("on-b", 3*gib, "", "node-b"))
	mustCreate(t, td, createOn("on-a", 2*gib, "", ""))

	wantAvailable(t, td, "", "node-b", 7*gib)
	wantAvailable(t, td, "", "node-a", 8*gib)
	// A node the driver has never seen is a whole, empty pool.
	wantAvailable(t, td, "", "node-c", 10*gib)
	// Without a topology the driver answers for its own node.
	wantAvailable(t, td, "", "", 8*gib)

	t.Run("a clone takes space where its source is", func(t *testing.T) {
		req := createOn("clone-of-b", 3*gib, "", "")
		req.VolumeContentSource = cloneSource(onB.GetVolumeId())
		mustCreate(t, td, req)
		wantAvailable(t, td, "", "node-b", 4*gib)
		wantAvailable(t, td, "", "node-a", 8*gib)
	})

	deleteVolume(t, td, onB.GetVolumeId())
	wantAvailable(t, td, "", "node-b", 7*gib)
	wantAvailable(t, td, "", "node-a", 8*gib)
}

func TestCapacityExhaustedPerNode(t *testing.T) {
	td := startDriver(t, Config{NodeID: "node-a", Topology: true, Capacity: 4 * gib})
	mustCreate(t, td, createOn("b-1", 3*gib, "", "node-b"))

	_, err := td.controller.CreateVolume(callCtx(t), createOn("b-2", 2*gib, "", "node-b"))
	wantCode(t, err, codes.ResourceExhausted)
	// The other nodes' pools are untouched by node-b's.
	mustCreate(t, td, createOn("c-1", 2*gib, "", "node-c"))
	mustCreate(t, td, createOn("a-1", 4*gib, "", ""))
	// Exactly the rest still fits.
	mustCreate(t, td, createOn("b-3", gib, "", "node-b"))
	wantAvailable(t, td, "", "node-b", 0)

	if got := capacityOf(t, td, "", "node-b").GetMaximumVolumeSize().GetValue(); got != 0 {
		t.Fatalf("full pool reports a maximum volume size of %d", got)
	}
	if got := len(td.Volumes()); got != 4 {
		t.Fatalf("%d volumes, want 4: a refused request must not create one", got)
	}
}

func TestCapacityOfTopologyWithoutNode(t *testing.T) {
	td := startDriver(t, Config{NodeID: "node-a", Topology: true, Capacity: 4 * gib})
	other := &csi.Topology{Segments: map[string]string{"topology.example.com/zone": "z1"}}

	resp, err := td.controller.GetCapacity(callCtx(t), &csi.GetCapacityRequest{AccessibleTopology: other})
	if err != nil {
		t.Fatalf("GetCapacity for a segment without a node: %v", err)
	}
	if resp.GetAvailableCapacity() != 0 {
		t.Fatalf("segment without a node has %d bytes available, want 0", resp.GetAvailableCapacity())
	}

	t.Run("requisite without a node is ResourceExhausted", func(t *testing.T) {
		req := createReq("nowhere", gib)
		req.AccessibilityRequirements = &csi.TopologyRequirement{Requisite: []*csi.Topology{other}}
		_, err := td.controller.CreateVolume(callCtx(t), req)
		wantCode(t, err, codes.ResourceExhausted)
	})
	t.Run("segments without a node are skipped", func(t *testing.T) {
		req := createReq("on-b", gib)
		req.AccessibilityRequirements = &csi.TopologyRequirement{
			Requisite: []*csi.Topology{other, nodeTopo("node-b")},
			Preferred: []*csi.Topology{other, nodeTopo("node-b")},
		}
		vol := mustCreate(t, td, req)
		if got := vol.GetAccessibleTopology()[0].GetSegments()[TopologyKey]; got != "node-b" {
			t.Fatalf("volume placed on %q, want node-b", got)
		}
	})
	t.Run("preferred without a node falls back to the own node", func(t *testing.T) {
		req := createReq("on-a", gib)
		req.AccessibilityRequirements = &csi.TopologyRequirement{Preferred: []*csi.Topology{other}}
		vol := mustCreate(t, td, req)
		if got := vol.GetAccessibleTopology()[0].GetSegments()[TopologyKey]; got != "node-a" {
			t.Fatalf("volume placed on %q, want node-a", got)
		}
	})
}

func TestCapacityPoolsByParameter(t *testing.T) {
	td := startDriver(t, Config{
		NodeID:   "node-a",
		Topology: true,
		Capacity: 10 * gib,
		Pools:    map[string]int64{"fast": 2 * gib, "slow": 20 * gib},
	})
	fast := mustCreate(t, td, createOn("fast-1", gib, "fast", ""))

	wantAvailable(t, td, "fast", "", gib)
	wantAvailable(t, td, "", "", 10*gib)
	wantAvailable(t, td, "slow", "", 20*gib)
	// Each node has its own copy of every pool.
	wantAvailable(t, td, "fast", "node-b", 2*gib)

	_, err := td.controller.CreateVolume(callCtx(t), createOn("fast-2", 2*gib, "fast", ""))
	wantCode(t, err, codes.ResourceExhausted)
	// The same request fits in another pool, and in fast on another node.
	mustCreate(t, td, createOn("slow-1", 2*gib, "slow", ""))
	mustCreate(t, td, createOn("fast-on-b", 2*gib, "fast", "node-b"))
	wantAvailable(t, td, "slow", "", 18*gib)
	wantAvailable(t, td, "fast", "node-b", 0)
	wantAvailable(t, td, "", "", 10*gib)

	deleteVolume(t, td, fast.GetVolumeId())
	wantAvailable(t, td, "fast", "", 2*gib)
}

func TestCapacityUnknownPool(t *testing.T) {
	td := startDriver(t, Config{Topology: true, Capacity: 10 * gib, Pools: map[string]int64{"fast": gib}})
	resp := capacityOf(t, td, "bogus", "")
	if resp.GetAvailableCapacity() != 0 || resp.GetMaximumVolumeSize().GetValue() != 0 {
		t.Fatalf("unknown pool reports %v, want no capacity", resp)
	}
	_, err := td.controller.CreateVolume(callCtx(t), createOn("pvc-1", gib, "bogus", ""))
	wantCode(t, err, codes.InvalidArgument)
	if got := len(td.Volumes()); got != 0 {
		t.Fatalf("unknown pool created %d volumes", got)
	}
}

func TestCapacityMaximumVolumeSizePerPool(t *testing.T) {
	td := startDriver(t, Config{Capacity: 10 * gib, MaxVolumeSize: 3 * gib, Pools: map[string]int64{"fast": 2 * gib}})
	maxSize := func(pool string) int64 {
		t.Helper()
		return capacityOf(t, td, pool, "").GetMaximumVolumeSize().GetValue()
	}
	if got := maxSize(""); got != 3*gib {
		t.Fatalf("default pool: maximum volume size %d, want the configured cap %d", got, 3*gib)
	}
	if got := maxSize("fast"); got != 2*gib {
		t.Fatalf("fast pool: maximum volume size %d, want the pool's %d", got, 2*gib)
	}
	mustCreate(t, td, createOn("fast-1", gib+gib/2, "fast", ""))
	if got := maxSize("fast"); got != gib/2 {
		t.Fatalf("fast pool after a volume: maximum volume size %d, want the rest %d", got, gib/2)
	}
	if got := maxSize(""); got != 3*gib {
		t.Fatalf("default pool changed by a fast volume: maximum volume size %d", got)
	}
}

func TestCapacityWithoutTopologyIsOnePool(t *testing.T) {
	td := startDriver(t, Config{NodeID: "node-a", Capacity: 10 * gib})
	mustCreate(t, td, createOn("asks-for-b", 3*gib, "", "node-b"))
	mustCreate(t, td, createOn("anywhere", 2*gib, "", ""))
	for _, node := range []string{"", "node-a", "node-b", "node-c"} {
		wantAvailable(t, td, "", node, 5*gib)
	}
	_, err := td.controller.CreateVolume(callCtx(t), createOn("too-big", 6*gib, "", "node-c"))
	wantCode(t, err, codes.ResourceExhausted)
}

func TestCapacityNamedPoolsOnly(t *testing.T) {
	td := startDriver(t, Config{Pools: map[string]int64{"fast": gib}})
	caps, err := td.controller.ControllerGetCapabilities(callCtx(t), &csi.ControllerGetCapabilitiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	advertised := false
	for _, c := range caps.GetCapabilities() {
		advertised = advertised || c.GetRpc().GetType() == csi.ControllerServiceCapability_RPC_GET_CAPACITY
	}
	if !advertised {
		t.Fatal("GET_CAPACITY not advertised with a named pool")
	}
	// The default pool has no size: room for anything, and no cap to report.
	resp := capacityOf(t, td, "", "")
	if resp.GetAvailableCapacity() != math.MaxInt64 || resp.GetMaximumVolumeSize() != nil {
		t.Fatalf("unlimited default pool reports %v", resp)
	}
	mustCreate(t, td, createOn("big", 100*gib, "", ""))
	wantAvailable(t, td, "fast", "", gib)
}

func TestCapacityConfigValidation(t *testing.T) {
	for name, pools := range map[string]map[string]int64{
		"empty name":    {"": gib},
		"zero size":     {"fast": 0},
		"negative size": {"fast": -1},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := New(Config{Pools: pools}); err == nil {
				t.Fatalf("New accepted pools %v", pools)
			}
		})
	}
}

func TestCapacitySurvivesRestart(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	cfg := Config{StateFile: stateFile, NodeID: "node-a", Topology: true, Capacity: 10 * gib, Pools: map[string]int64{"fast": 4 * gib}}
	first := startDriver(t, cfg)
	mustCreate(t, first, createOn("a", 2*gib, "", ""))
	mustCreate(t, first, createOn("b", 3*gib, "", "node-b"))
	mustCreate(t, first, createOn("fast-b", gib, "fast", "node-b"))
	if err := first.stop(); err != nil {
		t.Fatalf("stopping the first driver: %v", err)
	}

	second := startDriver(t, cfg)
	wantAvailable(t, second, "", "node-a", 8*gib)
	wantAvailable(t, second, "", "node-b", 7*gib)
	wantAvailable(t, second, "fast", "node-b", 3*gib)
	_, err := second.controller.CreateVolume(callCtx(t), createOn("too-big", 4*gib, "fast", "node-b"))
	wantCode(t, err, codes.ResourceExhausted)
}

// State files of earlier versions hold parameters and topology already, so
// their volumes count against the right pools without a new version.
func TestCapacityFromOlderStateFiles(t *testing.T) {
	files := map[string]string{
		"version 1": `{"version":1,"nextSeq":4,"volumes":[
			{"name":"a","id":"mock-1","capacityBytes":1073741824,"accessType":"mount","seq":1},
			{"name":"b","id":"mock-2","capacityBytes":2147483648,"accessType":"mount","seq":2,
			 "accessibleTopology":[{"topology.mock.csi-protect.io/node":"node-b"}]},
			{"name":"c","id":"mock-3","capacityBytes":1073741824,"accessType":"mount","seq":3,
			 "parameters":{"pool":"fast"},"accessibleTopology":[{"topology.mock.csi-protect.io/node":"node-b"}]}]}`,
		"version 2": `{"version":2,"nextSeq":4,"volumes":[
			{"name":"a","id":"mock-1","capacityBytes":1073741824,"dataID":"data-1","accessType":"mount","seq":1},
			{"name":"b","id":"mock-2","capacityBytes":2147483648,"dataID":"data-2","accessType":"mount","seq":2,
			 "accessibleTopology":[{"topology.mock.csi-protect.io/node":"node-b"}]},
			{"name":"c","id":"mock-3","capacityBytes":1073741824,"dataID":"data-3","accessType":"mount","seq":3,
			 "parameters":{"pool":"fast"},"accessibleTopology":[{"topology.mock.csi-protect.io/node":"node-b"}]}],
			"snapshots":[]}`,
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			stateFile := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(stateFile, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			td := startDriver(t, Config{StateFile: stateFile, NodeID: "node-a", Topology: true, Capacity: 10 * gib, Pools: map[string]int64{"fast": 4 * gib}})
			// Volume a has no topology, so it lives on the driver's node.
			wantAvailable(t, td, "", "node-a", 9*gib)
			wantAvailable(t, td, "", "node-b", 8*gib)
			wantAvailable(t, td, "fast", "node-b", 3*gib)
			wantAvailable(t, td, "fast", "node-a", 4*gib)
		})
	}
}

func TestGetCapacityIsCounted(t *testing.T) {
	td := startDriver(t, Config{Capacity: gib})
	before := td.Calls("GetCapacity")
	capacityOf(t, td, "", "")
	capacityOf(t, td, "bogus", "")
	if got := td.Calls("GetCapacity") - before; got != 2 {
		t.Fatalf("GetCapacity counted %d times, want 2", got)
	}
}
