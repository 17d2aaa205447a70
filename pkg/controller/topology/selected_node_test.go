package topology

import (
	"testing"
)

func TestSelectedNodeAggregatesNodesWithSameKeys(t *testing.T) {
	c := zonalCluster([]string{zoneKey},
		zone("z2"), zone("z1"), zone("z2"), zone("z3"),
		seg("other", "x"), // lacks the zone key: not a segment
	)
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")

	requisite, preferred := mustRequire(t, req)

	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1"), zone("z2"), zone("z3")})
	expectSegments(t, "preferred", preferred, []map[string]string{zone("z2"), zone("z3"), zone("z1")})
}

func TestSelectedNodeWithSeveralKeys(t *testing.T) {
	c := zonalCluster([]string{zoneKey, rackKey},
		zoneRack("z1", "r2"), zoneRack("z1", "r1"), zoneRack("z2", "r1"),
		zone("z3"), // lacks the rack key: not a segment
	)
	req := c.request(t)
	req.SelectedNode = c.node(t, "n1")

	requisite, preferred := mustRequire(t, req)

	// Segments sort by their pairs in key order, and rack sorts before zone.
	expectSegments(t, "requisite", requisite, []map[string]string{zoneRack("z1", "r1"), zoneRack("z2", "r1"), zoneRack("z1", "r2")})
	expectSegments(t, "preferred", preferred, requisite)
}

func TestSelectedNodeKeysComeFromItsOwnCSINode(t *testing.T) {
	// n0 registered only the zone key, n1 also the rack key: the request
	// for n0 must be zonal, whatever n1 registered.
	c := zonalCluster([]string{zoneKey}, zoneRack("z1", "r1"), zoneRack("z2", "r2"))
	c.csiNodes[1] = csiNodeObj("n1", map[string][]string{driver: {zoneKey, rackKey}})
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")

	requisite, preferred := mustRequire(t, req)

	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1"), zone("z2")})
	expectSegments(t, "preferred", preferred, []map[string]string{zone("z1"), zone("z2")})
}

func TestSelectedNodeLabelsComeFromTheSelectedNodeObject(t *testing.T) {
	// The key list comes from the CSINode; values of the selected node come
	// from the Node handed in, which here is newer than the lister's copy.
	c := zonalCluster([]string{zoneKey}, zone("z1"), zone("z2"))
	req := c.request(t)
	req.SelectedNode = nodeObj("n0", zone("z2"))

	_, preferred := mustRequire(t, req)

	if got := preferred[0][zoneKey]; got != "z2" {
		t.Errorf("first preferred zone = %q, want z2 from the selected Node object", got)
	}
}

func TestSelectedNodeIgnoresOtherDrivers(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zoneRack("z1", "r1"))
	c.csiNodes[0] = csiNodeObj("n0", map[string][]string{
		"other.csi.example.com": {rackKey},
		driver:                  {zoneKey},
	})
	req := c.request(t)
	req.SelectedNode = c.node(t, "n0")

	requisite, _ := mustRequire(t, req)

	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1")})
}

func TestStrictTopologyUsesOnlySelectedNode(t *testing.T) {
	c := zonalCluster([]string{zoneKey, rackKey}, zoneRack("z1", "r1"), zoneRack("z2", "r2"), zoneRack("z3", "r3"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n1")
	req.StrictTopology = true

	requisite, preferred := mustRequire(t, req)

	want := []map[string]string{zoneRack("z2", "r2")}
	expectSegments(t, "requisite", requisite, want)
	expectSegments(t, "preferred", preferred, want)
}

func TestStrictTopologyDoesNotNeedOtherNodes(t *testing.T) {
	// Strict topology uses the selected node alone, so an empty Node lister
	// is no obstacle.
	c := zonalCluster([]string{zoneKey}, zone("z1"))
	selected := c.node(t, "n0")
	c.nodes = nil
	req := c.request(t)
	req.SelectedNode = selected
	req.StrictTopology = true

	requisite, _ := mustRequire(t, req)

	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1")})
}

func TestStrictTopologyWithoutSelectedNodeIsIgnored(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"), zone("z2"))
	req := c.request(t)
	req.StrictTopology = true
	req.ImmediateTopology = true

	requisite, _ := mustRequire(t, req)

	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1"), zone("z2")})
}

func TestSelectedNodeRequirementIsStable(t *testing.T) {
	// Listers return objects in map order; the request must not depend on it.
	c := zonalCluster([]string{zoneKey},
		zone("z5"), zone("z3"), zone("z1"), zone("z4"), zone("z2"), zone("z3"))
	req := c.request(t)
	req.SelectedNode = c.node(t, "n3")
	wantReq, wantPref := mustRequire(t, req)
	for range 20 {
		gotReq, gotPref := mustRequire(t, req)
		expectSegments(t, "requisite", gotReq, wantReq)
		expectSegments(t, "preferred", gotPref, wantPref)
	}
	expectSegments(t, "preferred", wantPref, []map[string]string{zone("z4"), zone("z5"), zone("z1"), zone("z2"), zone("z3")})
}
