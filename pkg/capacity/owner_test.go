package capacity

import (
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestObjectsAreOwnedAsConfigured(t *testing.T) {
	yes := true
	owner := &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "csi", UID: "ds-uid", Controller: &yes}
	stale := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "csi", UID: "old-uid", Controller: &yes}
	objs := append(twoNodesAndClasses(), &storagev1.CSIStorageCapacity{
		ObjectMeta: metav1.ObjectMeta{Name: "adopted", Namespace: testNamespace, OwnerReferences: []metav1.OwnerReference{stale},
			Labels: map[string]string{DriverNameLabel: testDriver, ManagedByLabel: ManagedBy}},
		StorageClassName: "late",
		NodeTopology:     NewSegment(map[string]string{topologyKey1: "n1"}).Selector(),
		Capacity:         qty(0),
	})
	f := newFixture(t, fixtureOptions{objects: objs, owner: owner})
	f.start()
	got := f.waitFor("both objects owned by the DaemonSet alone", func(objs []storagev1.CSIStorageCapacity) bool {
		if len(objs) != 2 {
			return false
		}
		for _, o := range objs {
			if len(o.OwnerReferences) != 1 || o.OwnerReferences[0].UID != owner.UID {
				return false
			}
		}
		return true
	})
	if byNode(got, "late")["n1"].Name != "adopted" {
		t.Errorf("the existing object was not adopted: %s", describe(got))
	}
}

func TestManagedByNodeMatchesUpstreamLabelValues(t *testing.T) {
	for _, tc := range []struct{ node, want string }{
		{"worker-1", "external-provisioner-worker-1"},
		// 42 characters: the longest that fits whole.
		{"n-000000000000000000000000000000000000000", "external-provisioner-n-000000000000000000000000000000000000000"},
	} {
		if got := ManagedByNode(tc.node); got != tc.want {
			t.Errorf("ManagedByNode(%q) = %q, want %q", tc.node, got, tc.want)
		}
	}
	for _, n := range []int{43, 50, 53, 80} {
		node := make([]byte, n)
		for i := range node {
			node[i] = 'a'
		}
		got := ManagedByNode(string(node))
		if len(got) > 63 {
			t.Errorf("ManagedByNode of a %d-character node is %d characters: %q", n, len(got), got)
		}
		if got != ManagedByNode(string(node)) {
			t.Errorf("ManagedByNode is not stable for %d characters", n)
		}
	}
}
