//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// With WaitForFirstConsumer nothing is provisioned until the scheduler picks
// a node; then the volume is created for that node and the PV is pinned to
// it. Two nodes carry the driver's topology key, and each of two claims
// selects a different one, so a volume placed by any other rule (the
// driver's own node, the first node listed) is caught.
func TestWaitForFirstConsumerProvisionsOnSelectedNode(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{Topology: true, NodeID: "node-1"},
	})
	createTopologyNode(ctx, t, s, "node-1")
	createTopologyNode(ctx, t, s, "node-2")
	createStorageClass(ctx, t, s, "mock-wffc", waitForFirstConsumer)
	createClaim(ctx, t, s, "default", "on-node-1", "mock-wffc")
	createClaim(ctx, t, s, "default", "on-node-2", "mock-wffc")

	// The PV binder says the claims wait for a consumer; until a node is
	// selected the driver must not be asked for anything.
	waitForClaimEvent(ctx, t, s, "default", "on-node-1", corev1.EventTypeNormal, "WaitForFirstConsumer")
	waitForClaimEvent(ctx, t, s, "default", "on-node-2", corev1.EventTypeNormal, "WaitForFirstConsumer")
	if vols := driverVolumes(t, s); len(vols) != 0 {
		t.Fatalf("driver holds %d volume(s) before any node was selected", len(vols))
	}
	for _, name := range []string{"on-node-1", "on-node-2"} {
		if pvc := getClaim(ctx, t, s, "default", name); pvc.Status.Phase != corev1.ClaimPending {
			t.Fatalf("PVC %s is %s before a node was selected, want Pending", name, pvc.Status.Phase)
		}
	}

	// What the scheduler does once it placed a pod using the claim.
	selectNode(ctx, t, s, "default", "on-node-1", "node-1")
	selectNode(ctx, t, s, "default", "on-node-2", "node-2")

	for _, c := range []struct{ claim, node string }{{"on-node-1", "node-1"}, {"on-node-2", "node-2"}} {
		_, pv := waitForClaimBound(ctx, t, s, "default", c.claim)
		if got := nodeAffinityValues(pv); !slices.Equal(got, []string{c.node}) {
			t.Errorf("PV %s of %s is pinned to %v by %s, want [%s]", pv.Name, c.claim, got, mockdriver.TopologyKey, c.node)
		}
		vol, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
		if !ok {
			t.Fatalf("driver has no volume %s", pv.Spec.CSI.VolumeHandle)
		}
		want := []map[string]string{{mockdriver.TopologyKey: c.node}}
		if !slices.EqualFunc(vol.AccessibleTopology, want, maps.Equal) {
			t.Errorf("driver placed the volume of %s at %v, want %v", c.claim, vol.AccessibleTopology, want)
		}
	}
}

// selectNode sets the selected-node annotation on a claim, as the scheduler
// does for a WaitForFirstConsumer claim once it has placed the pod.
func selectNode(ctx context.Context, t *testing.T, s *framework.Stack, namespace, claim, node string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, annSelectedNode, node)
	_, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, claim, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("select node %s for PVC %s/%s: %v", node, namespace, claim, err)
	}
}

// nodeAffinityValues returns the values of the driver's topology key that
// the PV's required node affinity allows, or nil if it has none.
func nodeAffinityValues(pv *corev1.PersistentVolume) []string {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	var values []string
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, expr := range term.MatchExpressions {
			if expr.Key == mockdriver.TopologyKey && expr.Operator == corev1.NodeSelectorOpIn {
				values = append(values, expr.Values...)
			}
		}
	}
	return values
}
