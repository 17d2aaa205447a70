package capacity

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// prepare registers the nodes, creates the classes and their pending
// claims, then starts the watch of the objects, before any sidecar runs.
func (r *runner) prepare(ctx context.Context) error {
	r.nodes = framework.NodeNames(r.opts.Nodes)
	if err := r.changeNodes(ctx, nil, r.nodes); err != nil {
		return err
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	for _, c := range r.opts.Classes {
		_, err := r.client.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
			ObjectMeta:        metav1.ObjectMeta{Name: c.Name},
			Provisioner:       r.stack.DriverName(),
			VolumeBindingMode: &wffc,
			Parameters:        map[string]string{framework.PoolParameter: c.Pool},
		}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create StorageClass %s: %w", c.Name, err)
		}
	}
	if err := r.createPendingClaims(ctx); err != nil {
		return err
	}
	var err error
	r.watch, err = watchObjects(ctx, r.client, r.stack.Namespace(), r.stack.DriverName())
	return err
}

// createPendingClaims creates, for every class, a claim of its largest
// request and one of a tenth of it, neither used by a pod: claims the
// scheduler would place, which tell a sidecar that looks at them (ours
// does, to write first the changes that cross the largest) what size
// matters. No pod uses them, so nothing provisions them.
func (r *runner) createPendingClaims(ctx context.Context) error {
	if err := bench.EnsureNamespace(ctx, r.client, bench.ClaimNamespace); err != nil {
		return err
	}
	for _, c := range r.opts.Classes {
		for name, size := range map[string]int64{c.Name + "-largest": c.LargestRequest, c.Name + "-small": c.LargestRequest / 10} {
			claim := bench.NewClaim(name)
			claim.Spec.StorageClassName = &c.Name
			claim.Spec.Resources.Requests[corev1.ResourceStorage] = *resource.NewQuantity(size, resource.BinarySI)
			if _, err := r.client.CoreV1().PersistentVolumeClaims(bench.ClaimNamespace).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create claim %s: %w", name, err)
			}
		}
	}
	return nil
}

// changeNodes deletes the Node and CSINode of every node of leave and
// registers every node of join, as its kubelet and the driver's node
// plugin would, all at once with the benchmark's workers.
func (r *runner) changeNodes(ctx context.Context, leave, join []string) error {
	ops := make([]string, 0, len(leave)+len(join))
	for _, n := range leave {
		ops = append(ops, "leave "+n)
	}
	for _, n := range join {
		ops = append(ops, "join "+n)
	}
	driver := r.stack.DriverName()
	res := bench.ForEach(ctx, ops, r.opts.Creator.Workers, func(ctx context.Context, op string) error {
		verb, name, _ := strings.Cut(op, " ")
		if verb == "leave" {
			return r.deleteNode(ctx, name)
		}
		node, csiNode := framework.NodeObjects(driver, name)
		if _, err := r.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Node %s: %w", name, err)
		}
		if _, err := r.client.StorageV1().CSINodes().Create(ctx, csiNode, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create CSINode %s: %w", name, err)
		}
		return nil
	}, nil, nil)
	if res.Failed > 0 {
		return fmt.Errorf("%d of %d node changes failed, first: %w", res.Failed, len(ops), res.FirstErr)
	}
	return nil
}

// deleteNode deletes a node's CSINode, then its Node, as when the node is
// removed from the cluster.
func (r *runner) deleteNode(ctx context.Context, name string) error {
	if err := r.client.StorageV1().CSINodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete CSINode %s: %w", name, err)
	}
	if err := r.client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete Node %s: %w", name, err)
	}
	return nil
}
