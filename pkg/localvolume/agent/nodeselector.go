package agent

import (
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// matchNodeSelector tells whether sel selects node, with the semantics of a
// pod's required node affinity:
//
//   - a nil selector selects every node;
//   - the terms are ORed, and a selector without terms selects no node;
//   - within a term, matchExpressions (on labels) and matchFields (only
//     metadata.name) are ANDed, and a term with neither selects no node;
//   - In, NotIn, Exists, DoesNotExist, Gt and Lt on labels; In and NotIn on
//     fields. NotIn and DoesNotExist match a node without the label.
//
// A malformed requirement (unknown operator, Gt without exactly one integer)
// makes its term select nothing and is reported in the error, so the caller
// can say why a node was left out; the other terms still count.
func matchNodeSelector(sel *corev1.NodeSelector, node *corev1.Node) (bool, error) {
	if sel == nil {
		return true, nil
	}
	var firstErr error
	for i := range sel.NodeSelectorTerms {
		ok, err := matchTerm(&sel.NodeSelectorTerms[i], node)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("nodeSelectorTerms[%d]: %w", i, err)
			}
			continue
		}
		if ok {
			return true, nil
		}
	}
	return false, firstErr
}

func matchTerm(term *corev1.NodeSelectorTerm, node *corev1.Node) (bool, error) {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false, nil
	}
	for _, req := range term.MatchExpressions {
		value, present := node.Labels[req.Key]
		ok, err := matchRequirement(req, value, present)
		if err != nil {
			return false, fmt.Errorf("matchExpressions %s: %w", req.Key, err)
		}
		if !ok {
			return false, nil
		}
	}
	for _, req := range term.MatchFields {
		if req.Key != "metadata.name" {
			return false, fmt.Errorf("matchFields: unsupported field %q", req.Key)
		}
		if req.Operator != corev1.NodeSelectorOpIn && req.Operator != corev1.NodeSelectorOpNotIn {
			return false, fmt.Errorf("matchFields %s: unsupported operator %q", req.Key, req.Operator)
		}
		ok, err := matchRequirement(req, node.Name, true)
		if err != nil {
			return false, fmt.Errorf("matchFields %s: %w", req.Key, err)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

func matchRequirement(req corev1.NodeSelectorRequirement, value string, present bool) (bool, error) {
	switch req.Operator {
	case corev1.NodeSelectorOpIn:
		return present && slices.Contains(req.Values, value), nil
	case corev1.NodeSelectorOpNotIn:
		return !present || !slices.Contains(req.Values, value), nil
	case corev1.NodeSelectorOpExists:
		return present, nil
	case corev1.NodeSelectorOpDoesNotExist:
		return !present, nil
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(req.Values) != 1 {
			return false, fmt.Errorf("operator %s needs exactly one value, got %d", req.Operator, len(req.Values))
		}
		want, err := strconv.ParseInt(req.Values[0], 10, 64)
		if err != nil {
			return false, fmt.Errorf("operator %s: value %q is not an integer", req.Operator, req.Values[0])
		}
		if !present {
			return false, nil
		}
		got, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			// A label that is not a number is simply not greater or less.
			return false, nil
		}
		if req.Operator == corev1.NodeSelectorOpGt {
			return got > want, nil
		}
		return got < want, nil
	default:
		return false, fmt.Errorf("unknown operator %q", req.Operator)
	}
}
