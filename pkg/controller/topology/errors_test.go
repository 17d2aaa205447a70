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

// expectText runs Requirements, expecting an error of exactly want: the
// text upstream's GenerateAccessibilityRequirements (pkg/controller/
// topology.go, v6.3.0) returns for the same case, which its
// ProvisioningFailed event shows after the prefix of prepareProvision.
func expectText(t *testing.T, req Request, want string) error {
	t.Helper()
	err := expectError(t, req)
	if err.Error() != want {
		t.Errorf("error %q,\nwant upstream's %q", err, want)
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

	expectText(t, req, "no topology key found for node n0")
}

func TestSelectedNodeDriverWithoutKeys(t *testing.T) {
	c := zonalCluster(nil, zone("z1"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")
	req.StrictTopology = true

	expectText(t, req, "no topology key found for node n0")
}

func TestSelectedNodeLacksTopologyLabel(t *testing.T) {
	c := zonalCluster([]string{zoneKey, rackKey}, zone("z1"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")
	// Allowed topologies would not need the node's labels, but the selected
	// node must still be consistent with its CSINode.
	req.AllowedTopologies = []v1.TopologySelectorTerm{allowed(in(zoneKey, "z1"))}

	expectText(t, req, "topology labels from selected node map[topology.example.com/zone:z1] does not match topology keys from CSINode [topology.example.com/zone topology.example.com/rack]")
}

func TestStrictTopologySelectedNodeNotAllowed(t *testing.T) {
	c := zonalCluster([]string{zoneKey, rackKey}, zoneRack("z1", "r1"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")
	req.StrictTopology = true
	req.AllowedTopologies = []v1.TopologySelectorTerm{
		allowed(in(zoneKey, "z2")),
		allowed(in(zoneKey, "z1"), in(rackKey, "r2")),
		allowed(in(zoneKey, "z2", "z3"), in(rackKey, "r1", "r2")),
	}

	// The allowed segments in the order of upstream's flatten: the values
	// of a later key vary slowest.
	expectText(t, req, `selected node '"n0"' topology '[{topology.example.com/rack r1} {topology.example.com/zone z1}]' is not in allowed topologies: `+
		`[[{topology.example.com/zone z2}] [{topology.example.com/rack r2} {topology.example.com/zone z1}] `+
		`[{topology.example.com/rack r1} {topology.example.com/zone z2}] [{topology.example.com/rack r1} {topology.example.com/zone z3}] `+
		`[{topology.example.com/rack r2} {topology.example.com/zone z2}] [{topology.example.com/rack r2} {topology.example.com/zone z3}]]`)
}

func TestSelectedNodeMissingFromNodeLister(t *testing.T) {
	// Aggregation finds only other zones, so the selected node's segment
	// cannot be preferred; retrying beats sending a wrong preference.
	c := zonalCluster([]string{zoneKey}, zone("z1"), zone("z2"))
	selected := c.node(t, "n0")
	c.nodes = c.nodes[1:]
	req := c.request(t)
	req.SelectedNode = selected

	expectText(t, req, `topology [{topology.example.com/zone z1}] from selected node "n0" is not in requisite: [[{topology.example.com/zone z2}]]`)
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

			expectText(t, req, "topologyKeys [topology.example.com/zone] were not found on any nodes")
		})
	}
}

func TestImmediateTopologyWithoutRegisteredKeys(t *testing.T) {
	c := zonalCluster(nil, zone("z1"))
	c.csiNodes = append(c.csiNodes, csiNodeObj("n1", map[string][]string{"other.csi.example.com": {zoneKey}}))
	req := c.request(t)
	req.ImmediateTopology = true

	expectText(t, req, "no available topology found")
}

func TestInvalidTopologyKey(t *testing.T) {
	c := zonalCluster([]string{"not a valid key"}, seg("not a valid key", "x"))
	req := c.request(t)
	req.ImmediateTopology = true

	expectError(t, req, "error parsing topology keys selector: ", "not a valid key")
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
		want   string
	}{
		{"CSINode get", func(r *Request) { r.CSINodes = brokenCSINodes{}; r.SelectedNode = c.node(t, "n0") }, "failed to get selected CSINode n0: lister broken"},
		{"CSINode list", func(r *Request) { r.CSINodes = brokenCSINodes{}; r.ImmediateTopology = true }, "error listing CSINodes: lister broken"},
		{"Node list, selected node", func(r *Request) { r.Nodes = brokenNodes{}; r.SelectedNode = c.node(t, "n0") }, "error listing nodes: lister broken"},
		{"Node list, immediate", func(r *Request) { r.Nodes = brokenNodes{}; r.ImmediateTopology = true }, "error listing nodes: lister broken"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := c.request(t)
			tc.modify(&req)

			if err := expectText(t, req, tc.want); !errors.Is(err, errListerBroken) {
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
