package capacity

import (
	"slices"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const gib = int64(1) << 30

func twoNodesAndClasses() []runtime.Object {
	objs := append(nodeWithDriver("n1"), nodeWithDriver("n2")...)
	return append(objs,
		class("late", storagev1.VolumeBindingWaitForFirstConsumer, nil),
		class("now", storagev1.VolumeBindingImmediate, nil),
		// Another driver's class and a node without the driver get nothing.
		testutil.NewClass("other", "other.csi"),
		node("n3", map[string]string{topologyKey1: "n3"}),
	)
}

func TestOneObjectPerSegmentAndDelayedBindingClass(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses()})
	f.csi.set("n1", "", 10*gib)
	f.csi.set("n2", "", 20*gib)
	f.start()

	objs := f.waitFor("two objects of class late", func(objs []storagev1.CSIStorageCapacity) bool {
		late := byNode(objs, "late")
		return len(objs) == 2 && late["n1"].Capacity != nil && late["n2"].Capacity != nil
	})
	late := byNode(objs, "late")
	if got := late["n1"].Capacity.Value(); got != 10*gib {
		t.Errorf("n1 capacity %d, want %d", got, 10*gib)
	}
	if got := late["n2"].MaximumVolumeSize.Value(); got != 10*gib {
		t.Errorf("n2 maximumVolumeSize %d, want %d", got, 10*gib)
	}
	for _, o := range objs {
		if o.Labels[DriverNameLabel] != testDriver || o.Labels[ManagedByLabel] != ManagedBy {
			t.Errorf("%s has labels %v, want upstream's", o.Name, o.Labels)
		}
		if len(o.OwnerReferences) != 0 {
			t.Errorf("%s has owners %v without an owner configured", o.Name, o.OwnerReferences)
		}
	}
}

func TestImmediateClassesWhenAskedFor(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses(), immediate: true})
	f.start()
	f.waitFor("objects of both classes on both nodes", func(objs []storagev1.CSIStorageCapacity) bool {
		return len(byNode(objs, "late")) == 2 && len(byNode(objs, "now")) == 2 && len(objs) == 4
	})
}

func TestCapacityFollowsTheDriverOnRefresh(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses()})
	f.csi.set("n1", "", 10*gib)
	f.start()
	f.waitFor("n1 at 10Gi", func(objs []storagev1.CSIStorageCapacity) bool {
		o, ok := byNode(objs, "late")["n1"]
		return ok && o.Capacity.Value() == 10*gib
	})
	f.csi.set("n1", "", 4*gib)
	f.ctrl.RefreshClass("late")
	f.waitFor("n1 at 4Gi", func(objs []storagev1.CSIStorageCapacity) bool {
		o, ok := byNode(objs, "late")["n1"]
		return ok && o.Capacity.Value() == 4*gib && len(objs) == 2
	})
}

func TestRestartAdoptsObjectsAndDeletesDuplicates(t *testing.T) {
	objs := twoNodesAndClasses()
	older := metav1.NewTime(metav1.Now().Add(-1e9))
	existing := func(name string, created metav1.Time, value int64) *storagev1.CSIStorageCapacity {
		return &storagev1.CSIStorageCapacity{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, UID: typesUID("uid-x-" + name), CreationTimestamp: created,
				Labels: map[string]string{DriverNameLabel: testDriver, ManagedByLabel: ManagedBy}},
			StorageClassName: "late",
			NodeTopology:     Segment{Labels: map[string]string{topologyKey1: "n1"}}.Selector(),
			Capacity:         qty(value),
		}
	}
	objs = append(objs,
		existing("upstream-made", older, 1*gib),
		existing("twin", metav1.Now(), 1*gib),
		// Another sidecar's object, in the same namespace, is not touched.
		&storagev1.CSIStorageCapacity{
			ObjectMeta: metav1.ObjectMeta{Name: "foreign", Namespace: testNamespace,
				Labels: map[string]string{DriverNameLabel: testDriver, ManagedByLabel: ManagedByNode("n9")}},
			StorageClassName: "late",
		},
	)
	f := newFixture(t, fixtureOptions{objects: objs})
	f.csi.set("n1", "", 7*gib)
	f.start()
	got := f.waitFor("the old object updated, its twin gone, n2 created", func(objs []storagev1.CSIStorageCapacity) bool {
		late := byNode(objs, "late")
		return len(objs) == 3 && late["n1"].Name == "upstream-made" && late["n1"].Capacity.Value() == 7*gib && late["n2"].Name != ""
	})
	if !slices.ContainsFunc(got, func(o storagev1.CSIStorageCapacity) bool { return o.Name == "foreign" }) {
		t.Errorf("another sidecar's object was deleted: %s", describe(got))
	}
}
