package topology

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
)

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
		return nil, fmt.Errorf("listing CSINodes: %w", err)
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
	return nil, fmt.Errorf("no available topology found: no CSINode lists topology keys for driver %q", req.DriverName)
}

// nodeTerms returns the segments of all nodes that carry every key. Nodes
// are matched by labels only, as upstream external-provisioner does, so a
// node counts even where the driver is not running.
func nodeTerms(nodes corelisters.NodeLister, driver string, keys []string) ([]term, error) {
	if nodes == nil {
		return nil, errors.New("no Node lister configured")
	}
	selector := labels.NewSelector()
	for _, k := range keys {
		r, err := labels.NewRequirement(k, selection.Exists, nil)
		if err != nil {
			return nil, fmt.Errorf("topology key %q of driver %q: %w", k, driver, err)
		}
		selector = selector.Add(*r)
	}
	list, err := nodes.List(selector)
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	terms := make([]term, 0, len(list))
	for _, n := range list {
		// The selector guarantees that no key is missing.
		t, _ := termFromLabels(n.Labels, keys)
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("topology keys %v of driver %q were not found on any node", keys, driver)
	}
	return terms, nil
}
