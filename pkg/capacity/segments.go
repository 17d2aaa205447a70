package capacity

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Segment is a topology segment: the node labels (the driver's topology
// keys and their values) of the nodes that share one pool of storage.
// Empty labels are the one segment of a driver without topology: every
// node.
type Segment struct {
	Labels map[string]string
}

// NewSegment returns the segment of labels.
func NewSegment(labels map[string]string) Segment {
	if len(labels) == 0 {
		return Segment{}
	}
	return Segment{Labels: maps.Clone(labels)}
}

// Selector is the segment as the nodeTopology of a CSIStorageCapacity.
func (s Segment) Selector() *metav1.LabelSelector {
	// An empty selector matches every node; nil would match none. Empty
	// matchLabels stay nil, as the API server returns them.
	if len(s.Labels) == 0 {
		return &metav1.LabelSelector{}
	}
	return &metav1.LabelSelector{MatchLabels: maps.Clone(s.Labels)}
}

// Key names the segment in queue keys: the canonical text of its
// selector, the same an object's nodeTopology gives.
func (s Segment) Key() string { return selectorKey(s.Selector()) }

// selectorKey is the canonical text of a nodeTopology. Distinct selectors
// may share one (nil and empty both read "<none>"); sync compares the
// selectors themselves before adopting an object.
func selectorKey(sel *metav1.LabelSelector) string { return metav1.FormatLabelSelector(sel) }

// termSegment is the segment a node selector term of a PV's node affinity
// pins, as the provisioner writes them: one In requirement with one value
// per topology key. Other terms pin no single segment.
func termSegment(term v1.NodeSelectorTerm) (Segment, bool) {
	if len(term.MatchFields) > 0 {
		return Segment{}, false
	}
	labels := make(map[string]string, len(term.MatchExpressions))
	for _, req := range term.MatchExpressions {
		if req.Operator != v1.NodeSelectorOpIn || len(req.Values) != 1 {
			return Segment{}, false
		}
		labels[req.Key] = req.Values[0]
	}
	return NewSegment(labels), true
}

// sortedKeys lists a segment set's keys in order, for stable logs and tests.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
