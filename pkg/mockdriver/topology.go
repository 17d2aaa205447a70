package mockdriver

import (
	"maps"

	"github.com/container-storage-interface/spec/lib/go/csi"
)

// chooseTopology picks where a new volume is accessible from: the first
// preferred topology, else the first requisite one, else the driver's own
// node. The driver does not check that it "runs" there; it models storage
// reachable from wherever the CO asks.
func (d *Driver) chooseTopology(req *csi.TopologyRequirement) []map[string]string {
	for _, list := range [][]*csi.Topology{req.GetPreferred(), req.GetRequisite()} {
		if len(list) > 0 && len(list[0].GetSegments()) > 0 {
			return []map[string]string{maps.Clone(list[0].GetSegments())}
		}
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
