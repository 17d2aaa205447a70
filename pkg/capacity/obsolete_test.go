package capacity

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestDeletedClassLosesItsObjects(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses()})
	f.start()
	f.waitFor("two objects", func(objs []storagev1.CSIStorageCapacity) bool { return len(objs) == 2 })
	testutil.Delete(t, f.Client.StorageV1().StorageClasses(), "late")
	f.waitFor("no object", func(objs []storagev1.CSIStorageCapacity) bool { return len(objs) == 0 })
}

func TestRemovedNodeLosesItsSegment(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses()})
	f.start()
	f.waitFor("two objects", func(objs []storagev1.CSIStorageCapacity) bool { return len(objs) == 2 })
	testutil.Delete(t, f.Client.StorageV1().CSINodes(), "n2")
	f.waitFor("only n1's object", func(objs []storagev1.CSIStorageCapacity) bool {
		late := byNode(objs, "late")
		_, n1 := late["n1"]
		return len(objs) == 1 && n1
	})
}

func TestNodeLabelledLaterGainsItsSegment(t *testing.T) {
	objs := append(nodeWithDriver("n1"), class("late", storagev1.VolumeBindingWaitForFirstConsumer, nil),
		node("n2", nil), csiNode("n2", topologyKey1))
	f := newFixture(t, fixtureOptions{objects: objs})
	f.start()
	f.waitFor("n1's object", func(objs []storagev1.CSIStorageCapacity) bool { return len(objs) == 1 })
	testutil.Update(t, f.Client.CoreV1().Nodes(), "n2", func(n *v1.Node) { n.Labels[topologyKey1] = "n2" })
	f.waitFor("n2's object too", func(objs []storagev1.CSIStorageCapacity) bool { return len(byNode(objs, "late")) == 2 })
}

func TestObjectDeletedBySomeoneIsMadeAgain(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses()})
	f.start()
	objs := f.waitFor("two objects", func(objs []storagev1.CSIStorageCapacity) bool { return len(objs) == 2 })
	gone := objs[0].Name
	testutil.Delete(t, f.Client.StorageV1().CSIStorageCapacities(testNamespace), gone)
	f.waitFor("a new object instead", func(objs []storagev1.CSIStorageCapacity) bool {
		return len(objs) == 2 && objs[0].Name != gone && objs[1].Name != gone
	})
}

func TestFixedSegmentOfANodeDeployment(t *testing.T) {
	objs := append(twoNodesAndClasses()[2:], nodeWithDriver("n1")...)
	f := newFixture(t, fixtureOptions{objects: objs, topology: FixedTopology{Segment: NewSegment(map[string]string{topologyKey1: "local"})}})
	f.csi.set("local", "", 3*gib)
	f.start()
	f.waitFor("the local segment only", func(objs []storagev1.CSIStorageCapacity) bool {
		o, ok := byNode(objs, "late")["local"]
		return len(objs) == 1 && ok && o.Capacity.Value() == 3*gib
	})
}

func TestDriverWithoutTopologyHasOneObjectPerClassForAllNodes(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses(), topology: FixedTopology{}})
	f.start()
	objs := f.waitFor("one object", func(objs []storagev1.CSIStorageCapacity) bool { return len(objs) == 1 })
	if sel := objs[0].NodeTopology; sel == nil || len(sel.MatchLabels) != 0 || len(sel.MatchExpressions) != 0 {
		t.Errorf("nodeTopology %v, want the empty selector (every node)", sel)
	}
}
