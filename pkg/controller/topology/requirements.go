// Package topology builds the accessibility requirements that the
// provisioner sends in CSI CreateVolume and the PV node affinity made from
// the accessible topology of the created volume, with the semantics of
// upstream external-provisioner.
package topology

import (
	"context"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/klog/v2"
)

// Request holds what the accessibility requirements of one volume depend on.
type Request struct {
	// DriverName selects the driver's entry in each CSINode.
	DriverName string
	// PVName is hashed to rotate the preferred segments when no node is
	// selected. Upstream external-provisioner passes the PVC name here, which
	// lets the StatefulSet heuristic of spreadOffset work.
	PVName string
	// AllowedTopologies come from the StorageClass.
	AllowedTopologies []v1.TopologySelectorTerm
	// SelectedNode is the node chosen by the scheduler; nil for Immediate
	// binding.
	SelectedNode *v1.Node
	// StrictTopology (--strict-topology) restricts a volume with a selected
	// node to that node's segment.
	StrictTopology bool
	// ImmediateTopology (--immediate-topology) sends the topology of the
	// whole cluster when there is neither a selected node nor allowed
	// topologies.
	ImmediateTopology bool
	// CSINodes and Nodes are the only sources of cluster state.
	CSINodes storagelisters.CSINodeLister
	Nodes    corelisters.NodeLister
}

// Requirements returns the accessibility requirements for CreateVolume, or
// nil when there is none to send.
//
// Topology keys come from the driver's entry in CSINodes, their values from
// Node labels. Requisite is:
//   - with a selected node and strict topology: the node's segment, which
//     must lie in the allowed topologies if there are any;
//   - otherwise with allowed topologies: those topologies, one segment per
//     combination of values;
//   - otherwise with a selected node: the segments of all nodes labelled
//     with every topology key of the selected node;
//   - otherwise with immediate topology: the same over the keys found in the
//     CSINodes;
//   - otherwise nothing.
//
// Requisite is sorted and deduplicated. Preferred holds the same segments,
// starting with the first one that contains the selected node's segment or,
// without a selected node, rotated by a hash of PVName.
func Requirements(ctx context.Context, req Request) (*csi.TopologyRequirement, error) {
	var (
		keys     []string
		selected term
		err      error
	)
	if req.SelectedNode != nil {
		keys, selected, err = selectedNodeTopology(req)
		if err != nil {
			return nil, err
		}
	}
	requisite, err := requisiteTerms(ctx, req, keys, selected)
	if err != nil {
		return nil, err
	}
	requisite = sortedUnique(requisite)
	if len(requisite) == 0 {
		// Only reached when allowedTopologies yield no segment at all; like
		// upstream, this means no constraint rather than an error.
		return nil, nil
	}
	preferred, err := preferredTerms(req, requisite, selected)
	if err != nil {
		return nil, err
	}
	klog.FromContext(ctx).V(5).Info("Accessibility requirements", "driver", req.DriverName, "requisite", fmt.Sprint(requisite), "preferred", fmt.Sprint(preferred))
	return &csi.TopologyRequirement{Requisite: toCSI(requisite), Preferred: toCSI(preferred)}, nil
}

// requisiteTerms returns the unsorted requisite segments, nil for none.
func requisiteTerms(ctx context.Context, req Request, keys []string, selected term) ([]term, error) {
	switch {
	case req.SelectedNode != nil && req.StrictTopology:
		if len(req.AllowedTopologies) > 0 {
			if err := checkAllowed(req, selected); err != nil {
				return nil, err
			}
		}
		return []term{selected}, nil
	case len(req.AllowedTopologies) > 0:
		return expandAllowed(req.AllowedTopologies), nil
	case req.SelectedNode != nil:
		// Also nodes other than the selected one, for volumes that can
		// span several segments.
		return nodeTerms(req.Nodes, req.DriverName, keys)
	case req.ImmediateTopology:
		keys, err := clusterKeys(ctx, req)
		if err != nil {
			return nil, err
		}
		return nodeTerms(req.Nodes, req.DriverName, keys)
	default:
		// Neither the claim nor the class limit where the volume goes, and
		// the driver has not asked to be told about the cluster.
		return nil, nil
	}
}
