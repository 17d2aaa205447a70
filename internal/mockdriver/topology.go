package mockdriver

import (
	"maps"

	"github.com/container-storage-interface/spec/lib/go/csi"
)

// chooseTopology picks where a new volume is accessible from, the way
// TopoLVM picks a node: the first preferred segment that names a node under
// TopologyKey, else the first such requisite one, else the driver's own
// node. Segments without a node are skipped because no pool serves them.
// It returns nil when there are requisite segments but none names a node,
// as no placement then satisfies the CO. The driver does not check that it
// "runs" on the chosen node; it models storage reachable from wherever the
// CO asks.
func (d *Driver) chooseTopology(req *csi.TopologyRequirement) []map[string]string {
	for _, list := range [][]*csi.Topology{req.GetPreferred(), req.GetRequisite()} {
		for _, t := range list {
			if _, ok := segmentOf(t.GetSegments()); ok {
				return []map[string]string{maps.Clone(t.GetSegments())}
			}
		}
	}
	if len(req.GetRequisite()) > 0 {
		return nil
	}
	return []map[string]string{d.nodeTopology()}
}

// accessibleFrom reports whether a volume with topology topo satisfies the
// requisite part of req. Preferred topologies are only wishes.
func accessibleFrom(topo []map[string]string, req *csi.TopologyRequirement) bool {
	requisite := req.GetRequisite()
	if len(requisite) == 0 {
		return true
	}
	for _, have := range topo {
		for _, want := range requisite {
			if maps.Equal(have, want.GetSegments()) {
				return true
			}
		}
	}
	return false
}

func toCSITopology(topo []map[string]string) []*csi.Topology {
	if len(topo) == 0 {
		return nil
	}
	out := make([]*csi.Topology, len(topo))
	for i, t := range topo {
		out[i] = &csi.Topology{Segments: maps.Clone(t)}
	}
	return out
}
