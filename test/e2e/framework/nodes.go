package framework

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
)

// HostnameLabel is the well-known label the kubelet puts on its Node.
const HostnameLabel = "kubernetes.io/hostname"

// NodeNames returns "node-1" to "node-n", the names the tests give their
// fake nodes.
func NodeNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("node-%d", i+1)
	}
	return names
}

// CreateNodes registers fake nodes the way the kubelet and a driver's node
// plugin would, for the driver named driver: per name a Node labelled
// HostnameLabel=<name> and mockdriver.TopologyKey=<name> (the mock driver's
// segment with --node-id=<name> --topology), and a CSINode of the same name
// whose one driver entry has that name, node id <name> and topology key
// mockdriver.TopologyKey. No kubelet runs, so the Nodes never become Ready;
// nothing here needs them to.
func (c *Cluster) CreateNodes(ctx context.Context, driver string, names ...string) error {
	for _, name := range names {
		node, csiNode := NodeObjects(driver, name)
		if _, err := c.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Node %s: %w", name, err)
		}
		if _, err := c.client.StorageV1().CSINodes().Create(ctx, csiNode, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create CSINode %s: %w", name, err)
		}
	}
	return nil
}

// NodeObjects are the Node and CSINode CreateNodes creates for a node of
// driver, for a caller that creates many with a client of its own (a
// benchmark registering thousands of nodes in parallel).
func NodeObjects(driver, name string) (*corev1.Node, *storagev1.CSINode) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name,
		Labels: map[string]string{
			HostnameLabel:          name,
			mockdriver.TopologyKey: name,
		},
	}}
	csiNode := &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
			Name:         driver,
			NodeID:       name,
			TopologyKeys: []string{mockdriver.TopologyKey},
		}}},
	}
	return node, csiNode
}

// DeleteNode deletes the Node and the CSINode of a node made by
// CreateNodes, as when a node leaves the cluster. Objects already gone are
// no error.
func (c *Cluster) DeleteNode(ctx context.Context, name string) error {
	return errors.Join(c.DeleteCSINode(ctx, name), c.DeleteNodeObject(ctx, name))
}

// DeleteCSINode deletes only the CSINode of a node, as when the driver's
// node plugin is removed from it while the Node stays. A CSINode already
// gone is no error.
func (c *Cluster) DeleteCSINode(ctx context.Context, name string) error {
	err := c.client.StorageV1().CSINodes().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete CSINode %s: %w", name, err)
	}
	return nil
}

// DeleteNodeObject deletes only the Node object of a node, leaving its
// CSINode. A Node already gone is no error.
func (c *Cluster) DeleteNodeObject(ctx context.Context, name string) error {
	err := c.client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete Node %s: %w", name, err)
	}
	return nil
}

// CreateNodes is Cluster.CreateNodes for the stack's driver.
func (s *Stack) CreateNodes(ctx context.Context, names ...string) error {
	return s.cluster.CreateNodes(ctx, s.driverOpts.Name, names...)
}
