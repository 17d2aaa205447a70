package cleanup

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

// Index names, prefixed so they cannot clash with another user of the same
// shared informers.
const (
	// ownerIndex indexes local PVs by their owner key.
	ownerIndex = "localvolume-cleanup/owner"
	// volumeNodeIndex indexes local PVs by the hostname of their node.
	volumeNodeIndex = "localvolume-cleanup/node"
	// hostnameIndex indexes Nodes by their hostname label and by name.
	hostnameIndex = "localvolume-cleanup/hostname"
)

// indexKey is the value of ownerIndex for the PVs of key.
func indexKey(key OwnerKey) string {
	return key.Kind + "/" + key.Namespace + "/" + key.Name
}

func indexByOwner(obj interface{}) ([]string, error) {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok {
		return nil, nil
	}
	if key, ok := volumeOwner(pv); ok {
		return []string{indexKey(key)}, nil
	}
	return nil, nil
}

func indexByVolumeNode(obj interface{}) ([]string, error) {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok {
		return nil, nil
	}
	if _, ok := volumeOwner(pv); !ok {
		return nil, nil
	}
	if node := volumeNode(pv); node != "" {
		return []string{node}, nil
	}
	return nil, nil
}

func indexByHostname(obj interface{}) ([]string, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return nil, nil
	}
	return nodeNames(node), nil
}

// nodeNames are the values a PV may name node by: its hostname label and,
// should it lack the label or the label differ, its name.
func nodeNames(node *corev1.Node) []string {
	names := []string{node.Name}
	if h := node.Labels[local.NodeLabel]; h != "" && h != node.Name {
		names = append(names, h)
	}
	return names
}

// volumeNode is the hostname of the node a local PV lives on: its NodeLabel
// label or else the single value of the NodeLabel term of its node
// affinity. "" when neither says, or the affinity names several.
func volumeNode(pv *corev1.PersistentVolume) string {
	if h := pv.Labels[local.NodeLabel]; h != "" {
		return h
	}
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return ""
	}
	found := ""
	for _, term := range na.Required.NodeSelectorTerms {
		for _, expr := range term.MatchExpressions {
			if expr.Key != local.NodeLabel || expr.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			if len(expr.Values) != 1 || (found != "" && found != expr.Values[0]) {
				return ""
			}
			found = expr.Values[0]
		}
	}
	return found
}

// selects tells whether selector selects node, with the semantics of a
// node affinity's required terms: the terms are ORed, the requirements of a
// term ANDed, and an empty term selects nothing. A nil selector, or one
// without terms, selects every node, as an unset nodeSelector of a
// LocalVolume or LocalVolumeSet does.
//
// An invalid requirement is an error, and the caller takes the node as
// selected: a selector it cannot read must not get a node's volumes
// abandoned.
func selects(selector *corev1.NodeSelector, node *corev1.Node) (bool, error) {
	if selector == nil || len(selector.NodeSelectorTerms) == 0 {
		return true, nil
	}
	for i, term := range selector.NodeSelectorTerms {
		ok, err := termMatches(term, node)
		if err != nil {
			return false, fmt.Errorf("nodeSelectorTerms[%d]: %w", i, err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

func termMatches(term corev1.NodeSelectorTerm, node *corev1.Node) (bool, error) {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false, nil
	}
	matched := true
	// Every requirement is checked, not just up to the first miss, so an
	// invalid one is reported whatever comes before it.
	for i, req := range term.MatchExpressions {
		value, present := node.Labels[req.Key]
		ok, err := requirementMatches(req, value, present)
		if err != nil {
			return false, fmt.Errorf("matchExpressions[%d]: %w", i, err)
		}
		matched = matched && ok
	}
	for i, req := range term.MatchFields {
		if req.Key != "metadata.name" {
			return false, fmt.Errorf("matchFields[%d]: unsupported field %q, only metadata.name", i, req.Key)
		}
		if req.Operator != corev1.NodeSelectorOpIn && req.Operator != corev1.NodeSelectorOpNotIn {
			return false, fmt.Errorf("matchFields[%d]: unsupported operator %q, only In and NotIn", i, req.Operator)
		}
		ok, err := requirementMatches(req, node.Name, true)
		if err != nil {
			return false, fmt.Errorf("matchFields[%d]: %w", i, err)
		}
		matched = matched && ok
	}
	return matched, nil
}

// requirementMatches applies one requirement to a value (present tells
// whether the label exists at all).
func requirementMatches(req corev1.NodeSelectorRequirement, value string, present bool) (bool, error) {
	switch req.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(req.Values) == 0 {
			return false, fmt.Errorf("%s %s needs values", req.Key, req.Operator)
		}
		in := present && slices.Contains(req.Values, value)
		return in == (req.Operator == corev1.NodeSelectorOpIn), nil
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(req.Values) != 0 {
			return false, fmt.Errorf("%s %s takes no values", req.Key, req.Operator)
		}
		return present == (req.Operator == corev1.NodeSelectorOpExists), nil
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(req.Values) != 1 {
			return false, fmt.Errorf("%s %s needs exactly one value", req.Key, req.Operator)
		}
		bound, err := strconv.ParseInt(req.Values[0], 10, 64)
		if err != nil {
			return false, fmt.Errorf("%s %s: value %q is not an integer", req.Key, req.Operator, req.Values[0])
		}
		if !present {
			return false, nil
		}
		// A label that is not an integer does not match, as in Kubernetes.
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return false, nil
		}
		if req.Operator == corev1.NodeSelectorOpGt {
			return n > bound, nil
		}
		return n < bound, nil
	default:
		return false, fmt.Errorf("%s: unknown operator %q", req.Key, req.Operator)
	}
}

// Why a node's agent cannot clean a PV any more.
const (
	nodeMissing    = "no longer exists"
	nodeUnselected = "is no longer selected by the nodeSelector"
)

// reach is what the controller knows about the node of one PV.
type reach struct {
	// node is the PV's node hostname, "" if unknown.
	node string
	// lost is set once the node has been missing, or not selected, for
	// the grace period: no node agent will clean the PV.
	lost bool
	// why says how the node was lost (nodeMissing or nodeUnselected).
	why string
	// wait, when the node is missing or not selected but not yet for the
	// grace period, is the time until it may be.
	wait time.Duration
}

// unreachableKey is one owner's view of one node.
type unreachableKey struct {
	owner OwnerKey
	node  string
}

// nodeReach decides whether the agent of pv's node can still clean it for
// the owner o. A node counts as lost only after the Node cache has synced
// and once it has been missing or not selected for the grace period, as
// seen by this controller: the clock starts at the first sync that sees it
// so, and starts again if the node is seen present and selected, or is
// created again, in between.
func (c *Controller) nodeReach(ctx context.Context, o *owner, pv *corev1.PersistentVolume) (reach, error) {
	r := reach{node: volumeNode(pv)}
	if r.node == "" || !c.nodesSynced() {
		return r, nil
	}
	nodes, err := c.nodeIndex.ByIndex(hostnameIndex, r.node)
	if err != nil {
		return r, err
	}
	uk := unreachableKey{owner: o.key, node: r.node}
	why := nodeMissing
	if len(nodes) > 0 {
		why = nodeUnselected
		for _, obj := range nodes {
			node, ok := obj.(*corev1.Node)
			if !ok {
				continue
			}
			ok, err := selects(o.nodeSelector, node)
			if err != nil {
				// A selector that cannot be evaluated keeps the node.
				klog.FromContext(ctx).Error(err, "Cannot evaluate the nodeSelector; taking the node as selected", "node", node.Name)
			}
			if err != nil || ok {
				c.clearUnreachable(uk)
				return r, nil
			}
		}
	}
	since := c.markUnreachable(uk)
	elapsed := c.clock.Since(since)
	if elapsed >= c.nodeGoneGrace {
		r.lost, r.why = true, why
		return r, nil
	}
	r.wait, r.why = c.nodeGoneGrace-elapsed, why
	return r, nil
}

// markUnreachable records that uk's node is unreachable, if not already,
// and returns since when.
func (c *Controller) markUnreachable(uk unreachableKey) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	since, ok := c.unreachable[uk]
	if !ok {
		since = c.clock.Now()
		c.unreachable[uk] = since
	}
	return since
}

func (c *Controller) clearUnreachable(uk unreachableKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.unreachable, uk)
}

// nodeReturned restarts the grace period of every owner for a node that
// was created (again).
func (c *Controller) nodeReturned(node *corev1.Node) {
	names := nodeNames(node)
	c.mu.Lock()
	defer c.mu.Unlock()
	for uk := range c.unreachable {
		if slices.Contains(names, uk.node) {
			delete(c.unreachable, uk)
		}
	}
}
