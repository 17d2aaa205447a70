// Package topology builds the accessibility requirements that the
// provisioner sends in CSI CreateVolume and the PV node affinity made from
// the accessible topology of the created volume, with the semantics of
// upstream external-provisioner.
package topology

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
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
		return nodeTerms(req.Nodes, keys)
	case req.ImmediateTopology:
		keys, err := clusterKeys(ctx, req)
		if err != nil {
			return nil, err
		}
		return nodeTerms(req.Nodes, keys)
	default:
		// Neither the claim nor the class limit where the volume goes, and
		// the driver has not asked to be told about the cluster.
		return nil, nil
	}
}

// driverKeys returns the topology keys that driver registered in csiNode.
func driverKeys(csiNode *storagev1.CSINode, driver string) []string {
	i := slices.IndexFunc(csiNode.Spec.Drivers, func(d storagev1.CSINodeDriver) bool { return d.Name == driver })
	if i < 0 {
		return nil
	}
	return csiNode.Spec.Drivers[i].TopologyKeys
}

// selectedNodeTopology returns the driver's topology keys on the selected
// node and the node's segment for them. Failing here, rather than guessing,
// makes provisioning retry; the scheduler may then pick another node or the
// driver may finish registering.
func selectedNodeTopology(req Request) ([]string, term, error) {
	node, driver := req.SelectedNode.Name, req.DriverName
	if req.CSINodes == nil {
		return nil, nil, errors.New("no CSINode lister configured")
	}
	csiNode, err := req.CSINodes.Get(node)
	if apierrors.IsNotFound(err) {
		return nil, nil, &NoCSINodeError{Node: node, Err: err}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("failed to get selected CSINode %s: %w", node, err)
	}
	keys := driverKeys(csiNode, driver)
	// The texts of these errors are upstream's (GenerateAccessibilityRequirements).
	if len(keys) == 0 {
		return nil, nil, fmt.Errorf("no topology key found for node %s", node)
	}
	t, ok := termFromLabels(req.SelectedNode.Labels, keys)
	if !ok {
		return nil, nil, fmt.Errorf("topology labels from selected node %v does not match topology keys from CSINode %v", req.SelectedNode.Labels, keys)
	}
	return keys, t, nil
}

// NoCSINodeError says that the selected node has no CSINode object: no
// CSI driver has registered there (yet). As upstream, the claim goes back
// to the scheduler, which may pick another node.
type NoCSINodeError struct {
	Node string
	// Err is the lister's NotFound error.
	Err error
}

// Error is upstream's text, which its event shows.
func (e *NoCSINodeError) Error() string {
	return fmt.Sprintf("failed to get selected CSINode %s: %v", e.Node, e.Err)
}

func (e *NoCSINodeError) Unwrap() error { return e.Err }

// checkAllowed makes sure that the selected node lies in one of the allowed
// topologies, because with strict topology the node's own segment replaces
// them in the request.
func checkAllowed(req Request, selected term) error {
	allowed := expandAllowed(req.AllowedTopologies)
	if slices.ContainsFunc(allowed, func(t term) bool { return t.subsetOf(selected) }) {
		return nil
	}
	// Upstream's text, '%q' and all, with its formatting of terms.
	return fmt.Errorf("selected node '%q' topology '%v' is not in allowed topologies: %v", req.SelectedNode.Name, plain(selected), plainAll(allowed))
}

// expandAllowed turns StorageClass.allowedTopologies into CSI segments.
//
// allowedTopologies is an OR of terms, each an AND of keys, each key an OR
// of values; a CSI segment holds exactly one value per key. Each term is
// therefore expanded into the cartesian product of its values:
//
//	{zone: [z1, z2], rack: [r1]}  ->  {zone=z1,rack=r1}, {zone=z2,rack=r1}
//
// A term is kept as the StorageClass wrote it: keys it does not name stay
// unconstrained, as in upstream external-provisioner.
func expandAllowed(allowed []v1.TopologySelectorTerm) []term {
	var out []term
	for _, selector := range allowed {
		product := []term{{}}
		for _, expr := range selector.MatchLabelExpressions {
			var next []term
			// Values outermost, as upstream's flatten, so that the
			// segments come in its order, which its error texts show.
			for _, value := range expr.Values {
				for _, partial := range product {
					i := slices.IndexFunc(partial, func(s segment) bool { return s.key == expr.Key })
					switch {
					case i < 0:
						next = append(next, append(slices.Clone(partial), segment{expr.Key, value}))
					case partial[i].value == value:
						// A key named twice (the API refuses that, but
						// nothing here relies on it) is an AND: one
						// segment per agreeing value, none otherwise.
						next = append(next, partial)
					}
				}
			}
			product = next
		}
		for _, t := range product {
			if len(t) > 0 {
				t.sort()
				out = append(out, t)
			}
		}
	}
	return out
}

// clusterKeys picks the topology keys for immediate binding from the
// driver's entries in the CSINodes. Upstream external-provisioner takes the
// first CSINode with keys in random order; taking them in name order gives
// the same answer whenever all nodes agree and a stable one otherwise.
func clusterKeys(ctx context.Context, req Request) ([]string, error) {
	if req.CSINodes == nil {
		return nil, errors.New("no CSINode lister configured")
	}
	csiNodes, err := req.CSINodes.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("error listing CSINodes: %w", err)
	}
	slices.SortFunc(csiNodes, func(a, b *storagev1.CSINode) int { return strings.Compare(a.Name, b.Name) })
	for _, n := range csiNodes {
		if keys := driverKeys(n, req.DriverName); len(keys) > 0 {
			klog.FromContext(ctx).V(5).Info("Using topology keys from CSINode", "csinode", n.Name, "driver", req.DriverName, "keys", keys)
			return keys, nil
		}
	}
	// Most likely the driver has not started on any node yet; an error makes
	// provisioning retry instead of creating a volume in an arbitrary place.
	// Upstream's text.
	return nil, errors.New("no available topology found")
}

// nodeTerms returns the segments of all nodes that carry every key. Nodes
// are matched by labels only, as upstream external-provisioner does, so a
// node counts even where the driver is not running. Its error texts are
// upstream's (aggregateTopologies, buildTopologyKeySelector).
func nodeTerms(nodes corelisters.NodeLister, keys []string) ([]term, error) {
	if nodes == nil {
		return nil, errors.New("no Node lister configured")
	}
	selector := labels.NewSelector()
	for _, k := range keys {
		r, err := labels.NewRequirement(k, selection.Exists, nil)
		if err != nil {
			return nil, fmt.Errorf("error parsing topology keys selector: %w", err)
		}
		selector = selector.Add(*r)
	}
	list, err := nodes.List(selector)
	if err != nil {
		return nil, fmt.Errorf("error listing nodes: %w", err)
	}
	terms := make([]term, 0, len(list))
	for _, n := range list {
		// The selector guarantees that no key is missing.
		t, _ := termFromLabels(n.Labels, keys)
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("topologyKeys %v were not found on any nodes", keys)
	}
	return terms, nil
}
