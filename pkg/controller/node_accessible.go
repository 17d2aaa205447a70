package controller

import (
	"errors"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// volumeAccessible reports whether a PV's node affinity admits this node as
// the local driver describes it: labelled with its accessible topology and
// named nodeName. As upstream's VolumeIsAccessible, a driver without
// topology or a PV without required affinity admits every node.
//
// The node selector semantics are those of
// k8s.io/component-helpers/scheduling/corev1/nodeaffinity (not vendored
// here): terms are ORed, a term's requirements ANDed, an empty term matches
// nothing, and a term that does not parse makes an error only when no other
// term matches.
func volumeAccessible(affinity *v1.VolumeNodeAffinity, nodeName string, topology *csi.Topology) (bool, error) {
	if topology == nil || affinity == nil || affinity.Required == nil {
		return true, nil
	}
	nodeLabels := labels.Set(topology.GetSegments())
	var errs []error
	for _, term := range affinity.Required.NodeSelectorTerms {
		ok, err := termMatches(term, nodeName, nodeLabels)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return true, nil
		}
	}
	return false, errors.Join(errs...)
}

func termMatches(term v1.NodeSelectorTerm, nodeName string, nodeLabels labels.Set) (bool, error) {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false, nil
	}
	selector := labels.NewSelector()
	for _, expr := range term.MatchExpressions {
		op, ok := selectionOperators[expr.Operator]
		if !ok {
			return false, fmt.Errorf("node selector operator %q of key %q is not valid", expr.Operator, expr.Key)
		}
		req, err := labels.NewRequirement(expr.Key, op, expr.Values)
		if err != nil {
			return false, err
		}
		selector = selector.Add(*req)
	}
	fieldsMatch := true
	for _, field := range term.MatchFields {
		ok, err := nameMatches(field, nodeName)
		if err != nil {
			return false, err
		}
		fieldsMatch = fieldsMatch && ok
	}
	return fieldsMatch && selector.Matches(nodeLabels), nil
}

// nameMatches evaluates a matchFields requirement; metadata.name is the
// only field a node selector may name.
func nameMatches(field v1.NodeSelectorRequirement, nodeName string) (bool, error) {
	if field.Key != "metadata.name" {
		return false, fmt.Errorf("node selector field %q is not supported", field.Key)
	}
	if len(field.Values) != 1 {
		return false, fmt.Errorf("node selector field %q needs exactly one value, has %d", field.Key, len(field.Values))
	}
	switch field.Operator {
	case v1.NodeSelectorOpIn:
		return nodeName == field.Values[0], nil
	case v1.NodeSelectorOpNotIn:
		return nodeName != field.Values[0], nil
	}
	return false, fmt.Errorf("node selector operator %q is not valid for field %q", field.Operator, field.Key)
}

var selectionOperators = map[v1.NodeSelectorOperator]selection.Operator{
	v1.NodeSelectorOpIn:           selection.In,
	v1.NodeSelectorOpNotIn:        selection.NotIn,
	v1.NodeSelectorOpExists:       selection.Exists,
	v1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	v1.NodeSelectorOpGt:           selection.GreaterThan,
	v1.NodeSelectorOpLt:           selection.LessThan,
}
