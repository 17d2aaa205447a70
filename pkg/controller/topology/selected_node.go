package topology

import (
	"errors"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// driverKeys returns the topology keys that driver registered in csiNode.
func driverKeys(csiNode *storagev1.CSINode, driver string) []string {
	for _, d := range csiNode.Spec.Drivers {
		if d.Name == driver {
			return d.TopologyKeys
		}
	}
	return nil
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
		return nil, nil, fmt.Errorf("no topology key found on CSINode %q: the CSINode of selected node %q does not exist yet, so driver %q has not registered there: %w", node, node, driver, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("getting CSINode of selected node %q: %w", node, err)
	}
	keys := driverKeys(csiNode, driver)
	if len(keys) == 0 {
		return nil, nil, fmt.Errorf("no topology key found on CSINode %q: driver %q has not registered topology keys on selected node %q", node, driver, node)
	}
	t, missing := termFromLabels(req.SelectedNode.Labels, keys)
	if missing != "" {
		return nil, nil, fmt.Errorf("selected node %q has no label %q, which driver %q lists as a topology key in its CSINode (keys %v)", node, missing, driver, keys)
	}
	return keys, t, nil
}

// checkAllowed makes sure that the selected node lies in one of the allowed
// topologies, because with strict topology the node's own segment replaces
// them in the request.
func checkAllowed(req Request, selected term) error {
	allowed := expandAllowed(req.AllowedTopologies)
	for _, t := range allowed {
		if t.subsetOf(selected) {
			return nil
		}
	}
	return fmt.Errorf("topology %v of selected node %q is not in the allowed topologies %v of the StorageClass", selected, req.SelectedNode.Name, allowed)
}
