package controller

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const (
	ownNode   = "node-a"
	otherNode = "node-b"
	nodeKey   = "topology.test.csi-protect.io/node"
)

func localInfo(node string) *csi.NodeGetInfoResponse {
	return &csi.NodeGetInfoResponse{
		NodeId:             "id-" + node,
		AccessibleTopology: &csi.Topology{Segments: map[string]string{nodeKey: node}},
	}
}

// capacityCSI adds a programmable GetCapacity to fakeCSI.
type capacityCSI struct {
	*fakeCSI
	mu        sync.Mutex
	requests  []*csi.GetCapacityRequest
	available int64
	maximum   *wrapperspb.Int64Value
	err       error
}

func (c *capacityCSI) GetCapacity(ctx context.Context, req *csi.GetCapacityRequest, _ ...grpc.CallOption) (*csi.GetCapacityResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, req)
	if c.err != nil {
		return nil, c.err
	}
	return &csi.GetCapacityResponse{AvailableCapacity: c.available, MaximumVolumeSize: c.maximum}, nil
}

func (c *capacityCSI) capacityRequests() []*csi.GetCapacityRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*csi.GetCapacityRequest(nil), c.requests...)
}

// nodeEnv is a provisioner of node ownNode whose claim cache the test
// changes, with a driver that reports capacity and topology.
type nodeEnv struct {
	*env
	claims   cache.Indexer
	capacity *capacityCSI
}

func newNodeEnv(t *testing.T, objs envObjects, mutate ...func(*Options)) *nodeEnv {
	t.Helper()
	ne := &nodeEnv{
		claims:   testutil.Indexer(t, objs.claims...),
		capacity: &capacityCSI{available: 100 << 30},
	}
	base := func(o *Options) {
		ne.capacity.fakeCSI = o.CSIClient.(*fakeCSI)
		o.CSIClient = ne.capacity
		o.ClaimLister = corelisters.NewPersistentVolumeClaimLister(ne.claims)
		o.NodeDeployment = &NodeDeployment{
			NodeName:         ownNode,
			NodeInfo:         localInfo(ownNode),
			ImmediateBinding: true,
			BaseDelay:        5 * time.Millisecond,
			MaxDelay:         50 * time.Millisecond,
		}
		// The local topology replaces the cluster's.
		o.NodeLister, o.CSINodeLister = nil, nil
		o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] = true
		o.ControllerCapabilities[csi.ControllerServiceCapability_RPC_GET_CAPACITY] = true
		o.StrictTopology = true
	}
	ne.env = newEnv(t, objs, append([]func(*Options){base}, mutate...)...)
	// Delays of exactly base, 2*base, ...: tests can tell the wait happened.
	ne.prov.node.backoff.jitter = func() float64 { return 0 }
	return ne
}

// claimOn is the test claim with node selected ("" for none).
func claimOn(node string) *v1.PersistentVolumeClaim {
	c := newClaim("db", "1Gi")
	c.Annotations = map[string]string{driverscope.AnnStorageProvisioner: testDriver}
	if node != "" {
		c.Annotations[annSelectedNode] = node
	}
	return c
}

func classWith(mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
	return testutil.NewClass(testClass, testDriver, testutil.WithParameters(map[string]string{"tier": "gold"}), testutil.WithBindingMode(mode))
}

func TestNewRefusesIncompleteNodeDeployment(t *testing.T) {
	for name, nd := range map[string]NodeDeployment{
		"no node name":         {NodeInfo: localInfo(ownNode)},
		"no node info":         {NodeName: ownNode},
		"max below base delay": {NodeName: ownNode, NodeInfo: localInfo(ownNode), BaseDelay: time.Second, MaxDelay: time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, envObjects{})
			opts := e.opts
			opts.NodeDeployment = &nd
			if _, err := New(opts); err == nil {
				t.Fatal("New accepted an incomplete node deployment")
			}
		})
	}
}

func TestLocalTopologyListersHoldOnlyThisNodeAsTheDriverSeesIt(t *testing.T) {
	info := &csi.NodeGetInfoResponse{NodeId: "id-a", AccessibleTopology: &csi.Topology{Segments: map[string]string{"zone": "z1", nodeKey: ownNode}}}
	nodes, csiNodes := LocalTopologyListers(testDriver, ownNode, info)
	node, err := nodes.Get(ownNode)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(node.Labels, info.AccessibleTopology.Segments) {
		t.Fatalf("node labels %v", node.Labels)
	}
	csiNode, err := csiNodes.Get(ownNode)
	if err != nil {
		t.Fatal(err)
	}
	want := []storagev1.CSINodeDriver{{Name: testDriver, NodeID: "id-a", TopologyKeys: []string{nodeKey, "zone"}}}
	if !reflect.DeepEqual(csiNode.Spec.Drivers, want) {
		t.Fatalf("CSINode drivers %+v, want %+v", csiNode.Spec.Drivers, want)
	}
	if all, _ := nodes.List(labels.Everything()); len(all) != 1 {
		t.Fatalf("node lister holds %d nodes", len(all))
	}
}

func TestNodeDeploymentProvisionsClaimsOfItsNodeFromLocalTopology(t *testing.T) {
	claim := claimOn(ownNode)
	class := classWith(storagev1.VolumeBindingWaitForFirstConsumer)
	e := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{class}})
	if !e.prov.ShouldProvision(context.Background(), claim) {
		t.Fatal("ShouldProvision = false for a claim of this node")
	}
	// The lib passes the API's Node, whose labels do not matter here.
	apiNode := testutil.NewNode(ownNode, testutil.WithLabel(nodeKey, "stale"))
	pv, _, err := e.provision(t, claim, class, apiNode)
	if err != nil {
		t.Fatal(err)
	}
	want := []*csi.Topology{{Segments: map[string]string{nodeKey: ownNode}}}
	if got := e.csi.lastCreate(t).AccessibilityRequirements.GetRequisite(); !topologiesEqual(got, want) {
		t.Fatalf("requisite %v, want %v", got, want)
	}
	if ok, err := volumeAccessible(pv.Spec.NodeAffinity, ownNode, localInfo(ownNode).AccessibleTopology); !ok || err != nil {
		t.Fatalf("PV affinity %v does not admit this node: %v", pv.Spec.NodeAffinity, err)
	}
}

func TestNodeDeploymentIgnoresClaimsOfOtherNodes(t *testing.T) {
	claim := claimOn(otherNode)
	class := classWith(storagev1.VolumeBindingWaitForFirstConsumer)
	e := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{class}})
	if e.prov.ShouldProvision(context.Background(), claim) {
		t.Fatal("ShouldProvision = true for a claim of another node")
	}
	_, state, err := e.provision(t, claim, class, testutil.NewNode(otherNode))
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || state != controller.ProvisioningNoChange {
		t.Fatalf("state %s, err %v; want an IgnoredError", state, err)
	}
	if len(e.csi.creates) != 0 || len(e.claimUpdates()) != 0 {
		t.Fatalf("%d CreateVolume calls, %d claim updates for another node's claim", len(e.csi.creates), len(e.claimUpdates()))
	}
}

func TestNodeDeploymentDeletesOnlyVolumesOfItsNode(t *testing.T) {
	e := newNodeEnv(t, envObjects{})
	pv := releasedPV(testDriver)
	testutil.WithNodeAffinity(nodeKey, otherNode)(pv)
	err := e.prov.Delete(context.Background(), pv)
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || !strings.Contains(err.Error(), "not provisioned on this node") {
		t.Fatalf("err = %v, want an IgnoredError", err)
	}
	if len(e.csi.deletes) != 0 {
		t.Fatal("DeleteVolume was called for a volume of another node")
	}
	testutil.WithNodeAffinity(nodeKey, ownNode)(pv)
	if err := e.prov.Delete(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
	if len(e.csi.deletes) != 1 {
		t.Fatalf("%d DeleteVolume calls for a volume of this node", len(e.csi.deletes))
	}
}

func TestNodeDeploymentProtectionRecordsTheNode(t *testing.T) {
	for name, tc := range map[string]struct {
		finalizers []string
		recorded   string
		wantAdded  float64
	}{
		"new claim":              {wantAdded: 1},
		"rescheduled from other": {finalizers: []string{provisionstate.ProvisioningProtectionFinalizer}, recorded: otherNode},
	} {
		t.Run(name, func(t *testing.T) {
			claim := claimOn(ownNode)
			claim.Finalizers = tc.finalizers
			if tc.recorded != "" {
				claim.Annotations[provisionstate.AnnProvisioningNode] = tc.recorded
			}
			class := classWith(storagev1.VolumeBindingWaitForFirstConsumer)
			m := NewMetrics()
			registry := testutil.NewRegistry(m)
			e := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{class}},
				protectionOn, func(o *Options) { o.Metrics = m })
			e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
				live := e.apiClaim(t, "db")
				if !finalizer.Has(live, provisionstate.ProvisioningProtectionFinalizer) || live.Annotations[provisionstate.AnnProvisioningNode] != ownNode {
					t.Errorf("CreateVolume before finalizer and node were recorded: %v %v", live.Finalizers, live.Annotations)
				}
				return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "v1"}}, nil
			}
			if _, _, err := e.provision(t, claim, class, nil); err != nil {
				t.Fatal(err)
			}
			if n := len(e.claimUpdates()); n != 1 {
				t.Fatalf("%d claim writes, want finalizer and node in one", n)
			}
			if got := testutil.Metric(t, registry, "csi_provisioner_provisioning_protection_finalizers_added_total"); got != tc.wantAdded {
				t.Fatalf("finalizers added = %v, want %v", got, tc.wantAdded)
			}
		})
	}
}

func TestNodeDeploymentReplaysOnlyClaimsOfItsNode(t *testing.T) {
	for name, tc := range map[string]struct {
		recorded, selected string
		replays            bool
	}{
		"recorded here":                   {recorded: ownNode, selected: otherNode, replays: true},
		"recorded elsewhere":              {recorded: otherNode, selected: ownNode},
		"selected here, nothing recorded": {selected: ownNode, replays: true},
		"no node at all":                  {},
	} {
		t.Run(name, func(t *testing.T) {
			claim := deletedClaim()
			claim.Annotations = map[string]string{}
			if tc.recorded != "" {
				claim.Annotations[provisionstate.AnnProvisioningNode] = tc.recorded
			}
			if tc.selected != "" {
				claim.Annotations[annSelectedNode] = tc.selected
			}
			// Without immediate topology only a selected node gives the
			// request a topology: the replay must use this node.
			e := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{newClass(nil)}},
				protectionOn, func(o *Options) { o.ImmediateTopology = false })
			done, err := e.prov.ReplayAndDelete(context.Background(), claim)
			if !tc.replays {
				if done || !errors.Is(err, ErrOtherNode) || len(e.csi.creates) != 0 {
					t.Fatalf("done %v, err %v, %d CreateVolume calls; want a refusal", done, err, len(e.csi.creates))
				}
				return
			}
			if !done || err != nil {
				t.Fatalf("done %v, err %v", done, err)
			}
			want := []*csi.Topology{{Segments: map[string]string{nodeKey: ownNode}}}
			if got := e.csi.lastCreate(t).AccessibilityRequirements.GetRequisite(); !topologiesEqual(got, want) {
				t.Fatalf("replayed requisite %v, want this node's %v", got, want)
			}
		})
	}
}

func TestOnClaimDeleteForgetsTheBackoff(t *testing.T) {
	e := newNodeEnv(t, envObjects{})
	claim := claimOn("")
	for _, obj := range []any{claim, cache.DeletedFinalStateUnknown{Key: "apps/db", Obj: claim}} {
		e.prov.node.backoff.next(claim.UID)
		e.prov.OnClaimDelete(obj)
		if n := e.prov.node.backoff.limiter.NumRequeues(claim.UID); n != 0 {
			t.Fatalf("%T: %d attempts remembered after delete", obj, n)
		}
	}
}

func topologiesEqual(a, b []*csi.Topology) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i].GetSegments(), b[i].GetSegments()) {
			return false
		}
	}
	return true
}
