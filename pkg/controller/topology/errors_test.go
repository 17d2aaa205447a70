package topology

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
)

// expectError runs Requirements, expecting an error that mentions all of
// want.
func expectError(t *testing.T, req Request, want ...string) error {
	t.Helper()
	got, err := Requirements(testContext(t), req)
	if err == nil {
		t.Fatalf("got requirement %v, want an error", got)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	return err
}

func TestSelectedNodeWithoutCSINode(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"))
	c.csiNodes = nil
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")

	err := expectError(t, req)
	if !apierrors.IsNotFound(err) {
		t.Errorf("error %v does not wrap the NotFound error of the lister", err)
	}
	var noCSINode *NoCSINodeError
	if !errors.As(err, &noCSINode) || noCSINode.Node != "n0" {
		t.Errorf("error %v is not a NoCSINodeError of node n0", err)
	}
	// Upstream's text, which its ProvisioningFailed event shows.
	if want := `failed to get selected CSINode n0: csinode.storage.k8s.io "n0" not found`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestSelectedNodeCSINodeLacksDriver(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"))
	c.csiNodes[0] = csiNodeObj("n0", map[string][]string{"other.csi.example.com": {zoneKey}})
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")

	expectError(t, req, `"n0"`, driver, "no topology key found on CSINode")
}

func TestSelectedNodeDriverWithoutKeys(t *testing.T) {
	c := zonalCluster(nil, zone("z1"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")
	req.StrictTopology = true

	expectError(t, req, `"n0"`, driver, "no topology key found on CSINode")
}

func TestSelectedNodeLacksTopologyLabel(t *testing.T) {
	c := zonalCluster([]string{zoneKey, rackKey}, zone("z1"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")
	// Allowed topologies would not need the node's labels, but the selected
	// node must still be consistent with its CSINode.
	req.AllowedTopologies = []v1.TopologySelectorTerm{allowed(in(zoneKey, "z1"))}

	expectError(t, req, `"n0"`, driver, rackKey)
}

func TestStrictTopologySelectedNodeNotAllowed(t *testing.T) {
	c := zonalCluster([]string{zoneKey, rackKey}, zoneRack("z1", "r1"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")
	req.StrictTopology = true
	req.AllowedTopologies = []v1.TopologySelectorTerm{
		allowed(in(zoneKey, "z2")),
		allowed(in(zoneKey, "z1"), in(rackKey, "r2")),
	}

	expectError(t, req, `"n0"`, "not in the allowed topologies")
}

func TestSelectedNodeMissingFromNodeLister(t *testing.T) {
	// Aggregation finds only other zones, so the selected node's segment
	// cannot be preferred; retrying beats sending a wrong preference.
	c := zonalCluster([]string{zoneKey}, zone("z1"), zone("z2"))
	selected := c.node(t, "n0")
	c.nodes = c.nodes[1:]
	req := c.request(t)
	req.SelectedNode = selected

	expectError(t, req, `"n0"`, "not in requisite")
}

func TestNoNodeCarriesTheTopologyKeys(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Request)
	}{
		{"selected node", func(req *Request) { req.SelectedNode = nodeObj("n0", zone("z1")) }},
		{"immediate topology", func(req *Request) { req.ImmediateTopology = true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := zonalCluster([]string{zoneKey}, seg("other", "x"))
			req := c.request(t)
			tc.modify(&req)

			expectError(t, req, zoneKey, "not found on any node")
		})
	}
}

func TestImmediateTopologyWithoutRegisteredKeys(t *testing.T) {
	c := zonalCluster(nil, zone("z1"))
	c.csiNodes = append(c.csiNodes, csiNodeObj("n1", map[string][]string{"other.csi.example.com": {zoneKey}}))
	req := c.request(t)
	req.ImmediateTopology = true

	expectError(t, req, "no available topology found", driver)
}

func TestInvalidTopologyKey(t *testing.T) {
	c := zonalCluster([]string{"not a valid key"}, seg("not a valid key", "x"))
	req := c.request(t)
	req.ImmediateTopology = true

	expectError(t, req, "not a valid key", driver)
}

var errListerBroken = errors.New("lister broken")

type brokenCSINodes struct{ storagelisters.CSINodeLister }

func (brokenCSINodes) Get(string) (*storagev1.CSINode, error) { return nil, errListerBroken }
func (brokenCSINodes) List(labels.Selector) ([]*storagev1.CSINode, error) {
	return nil, errListerBroken
}

type brokenNodes struct{ corelisters.NodeLister }

func (brokenNodes) List(labels.Selector) ([]*v1.Node, error) { return nil, errListerBroken }

func TestListerErrorsAreReturned(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"))
	tests := []struct {
		name   string
		modify func(*Request)
	}{
		{"CSINode get", func(r *Request) { r.CSINodes = brokenCSINodes{}; r.SelectedNode = c.node(t, "n0") }},
		{"CSINode list", func(r *Request) { r.CSINodes = brokenCSINodes{}; r.ImmediateTopology = true }},
		{"Node list, selected node", func(r *Request) { r.Nodes = brokenNodes{}; r.SelectedNode = c.node(t, "n0") }},
		{"Node list, immediate", func(r *Request) { r.Nodes = brokenNodes{}; r.ImmediateTopology = true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := c.request(t)
			tc.modify(&req)

			if err := expectError(t, req); !errors.Is(err, errListerBroken) {
				t.Errorf("error %v does not wrap the lister error", err)
			}
		})
	}
}

func TestMissingListers(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"))
	tests := []struct {
		name   string
		modify func(*Request)
	}{
		{"CSINodes, selected node", func(r *Request) { r.CSINodes = nil; r.SelectedNode = c.node(t, "n0") }},
		{"CSINodes, immediate", func(r *Request) { r.CSINodes = nil; r.ImmediateTopology = true }},
		{"Nodes, selected node", func(r *Request) { r.Nodes = nil; r.SelectedNode = c.node(t, "n0") }},
		{"Nodes, immediate", func(r *Request) { r.Nodes = nil; r.ImmediateTopology = true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := c.request(t)
			tc.modify(&req)

			expectError(t, req, "lister")
		})
	}
}
