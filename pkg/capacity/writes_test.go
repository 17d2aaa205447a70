package capacity

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const (
	metricPendingWrites   = "csi_provisioner_capacity_pending_writes"
	metricWritesCoalesced = "csi_provisioner_capacity_writes_coalesced_total"
)

// lateClassOn is a WaitForFirstConsumer class and a segment per node.
func lateClassOn(nodes ...string) []runtime.Object {
	objs := []runtime.Object{class("late", storagev1.VolumeBindingWaitForFirstConsumer, nil)}
	for _, n := range nodes {
		objs = append(objs, nodeWithDriver(n)...)
	}
	return objs
}

// startAt starts f with every node's object published at bytes.
func (f *fixture) startAt(bytes int64, nodes ...string) {
	f.t.Helper()
	published := map[string]int64{}
	for _, n := range nodes {
		published[n] = bytes
	}
	f.startWith(published)
}

// startWith starts f with each node's object published at its bytes.
func (f *fixture) startWith(published map[string]int64) {
	f.t.Helper()
	for n, bytes := range published {
		f.csi.set(n, "", bytes)
	}
	f.start()
	f.waitFor("every object published", func(objs []storagev1.CSIStorageCapacity) bool {
		late := byNode(objs, "late")
		for n, bytes := range published {
			if o, ok := late[n]; !ok || o.Capacity.Value() != bytes {
				return false
			}
		}
		return len(objs) == len(published)
	})
}

// plug makes node's write the one in flight, held by the gate, so that
// the writes recorded next stay pending.
func (f *fixture) plug(gate *updateGate, node string, bytes int64) {
	f.t.Helper()
	f.refresh(bytes, node)
	f.Eventually(f.t, "the plug's update held", func() bool { return gate.waiters() == 1 })
}

func (f *fixture) capacityOf(node string) int64 {
	o, ok := byNode(f.objects(), "late")[node]
	if !ok || o.Capacity == nil {
		return -1
	}
	return o.Capacity.Value()
}

// behindAPluggedWrite is a fixture of one writer whose write of n0 the
// client holds, with a write of n1 pending behind it.
func behindAPluggedWrite(t *testing.T) (*fixture, *updateGate) {
	t.Helper()
	gate := newUpdateGate()
	f := newFixture(t, fixtureOptions{objects: lateClassOn("n0", "n1"), workers: 1, gate: gate})
	f.startAt(10*gib, "n0", "n1")
	f.plug(gate, "n0", 9*gib)
	f.refresh(8*gib, "n1")
	f.waitMetric(metricPendingWrites, 2)
	return f, gate
}

// With one write at a time, a change that crosses the largest pending
// request of the class is written before earlier changes that do not,
// larger ones included; among those, the larger relative change first.
func TestCrossingChangeIsWrittenFirst(t *testing.T) {
	gate := newUpdateGate()
	nodes := []string{"n0", "n1", "n2", "n3", "n4", "n5", "n6"}
	largest := func(class string) (int64, bool) { return 4 * gib, class == "late" }
	f := newFixture(t, fixtureOptions{objects: lateClassOn(nodes...), workers: 1, gate: gate, largest: largest})
	published := map[string]int64{"n6": 10 * gib}
	for _, n := range nodes[:6] {
		published[n] = 100 * gib
	}
	f.startWith(published)

	f.plug(gate, "n0", 90*gib)
	// maximumVolumeSize is half the capacity: 47.5Gi stays above 4Gi.
	f.refresh(95*gib, "n5")
	f.waitMetric(metricPendingWrites, 2)
	// 10Gi stays above 4Gi too, a larger change.
	f.refresh(20*gib, "n1", "n2", "n3", "n4")
	f.waitMetric(metricPendingWrites, 6)
	// 5Gi to 3.5Gi: n6 no longer takes the largest claim.
	f.refresh(7*gib, "n6")
	f.waitMetric(metricPendingWrites, 7)

	for i := range 7 {
		f.Eventually(t, fmt.Sprintf("update %d held", i+1), func() bool { return gate.waiters() == 1 })
		gate.letOne()
	}
	f.waitMetric(metricPendingWrites, 0)
	order := gate.order()
	if len(order) != 7 || order[0] != "n0" || order[1] != "n6" || order[6] != "n5" {
		t.Fatalf("writes in order %v; want n0 (in flight), n6 (crossing), n1-n4, n5 (smallest change)", order)
	}
	if middle := slices.Sorted(slices.Values(order[2:6])); !slices.Equal(middle, []string{"n1", "n2", "n3", "n4"}) {
		t.Errorf("writes in order %v; want n1-n4 between n6 and n5", order)
	}
	if got := f.capacityOf("n6"); got != 7*gib {
		t.Errorf("n6 at %d, want %d", got, 7*gib)
	}
}

// Answers of a key that come before its write coalesce into one write of
// the newest.
func TestRepeatedAnswersGiveOneWriteOfTheNewest(t *testing.T) {
	f, gate := behindAPluggedWrite(t)
	f.refresh(7*gib, "n1")
	f.waitMetric(metricWritesCoalesced, 1)
	f.refresh(6*gib, "n1")
	f.waitMetric(metricWritesCoalesced, 2)
	if got := f.metric(metricPendingWrites); got != 2 {
		t.Errorf("%v pending writes, want 2: n0's and n1's", got)
	}

	gate.open()
	f.waitMetric(metricPendingWrites, 0)
	if got := f.capacityOf("n1"); got != 6*gib {
		t.Errorf("n1 at %d, want the newest answer %d", got, 6*gib)
	}
	if got := f.updates.of("n1"); got != 1 {
		t.Errorf("%d updates of n1, want 1", got)
	}
}

// An answer back at the published value drops the pending write.
func TestChangedBackIsNotWritten(t *testing.T) {
	f, gate := behindAPluggedWrite(t)
	f.refresh(10*gib, "n1")
	f.waitMetric(metricPendingWrites, 1)

	gate.open()
	f.waitMetric(metricPendingWrites, 0)
	if got := f.capacityOf("n0"); got != 9*gib {
		t.Errorf("n0 at %d, want %d", got, 9*gib)
	}
	if got := f.updates.of("n1"); got != 0 {
		t.Errorf("%d updates of n1, want none", got)
	}
}

// A poll that finds every object current writes nothing.
func TestQuietPollWritesNothing(t *testing.T) {
	nodes := []string{"n1", "n2", "n3"}
	f := newFixture(t, fixtureOptions{objects: lateClassOn(nodes...)})
	f.startAt(10*gib, nodes...)
	before := map[string]int{}
	for _, n := range nodes {
		before[n] = f.syncs.Count(lateKey(n))
	}
	f.ctrl.enqueueAll(f.Ctx)
	for _, n := range nodes {
		f.syncs.Wait(t, f.Timeout, lateKey(n), before[n]+1)
	}
	if got := f.metric(metricPendingWrites); got != 0 {
		t.Errorf("%v pending writes after a quiet poll, want 0", got)
	}
	if got := f.updates.total(); got != 0 {
		t.Errorf("%d updates, want none", got)
	}
}

// A write refused with a conflict is retried after its back-off, without
// an event to bring it back, and ends written.
func TestConflictIsRetried(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: lateClassOn("n1")})
	stale := apierrors.NewConflict(schema.GroupResource{Group: "storage.k8s.io", Resource: "csistoragecapacities"}, "n1's object", errors.New("stale"))
	testutil.FailNext(f.Client, 1, stale, testutil.Verb("update"), testutil.On("csistoragecapacities"))
	f.startAt(10*gib, "n1")
	f.refresh(5*gib, "n1")
	outcomes := f.writes.Wait(t, f.Timeout, lateKey("n1"), 2)
	if len(outcomes) != 2 || !apierrors.IsConflict(outcomes[0]) || outcomes[1] != nil {
		t.Errorf("write outcomes %v, want a conflict, then success", outcomes)
	}
	if got := f.capacityOf("n1"); got != 5*gib {
		t.Errorf("n1 at %d, want %d", got, 5*gib)
	}
	f.waitMetric(metricPendingWrites, 0)
}

// A new object is created while updates are stuck behind the client.
func TestCreationIsNotDelayedByPendingWrites(t *testing.T) {
	f, gate := behindAPluggedWrite(t)

	f.csi.set("n2", "", 3*gib)
	testutil.Create(t, f.Client.CoreV1().Nodes(), node("n2", map[string]string{topologyKey1: "n2"}))
	testutil.Create(t, f.Client.StorageV1().CSINodes(), csiNode("n2", topologyKey1))
	f.waitFor("n2's object", func(objs []storagev1.CSIStorageCapacity) bool {
		o, ok := byNode(objs, "late")["n2"]
		return ok && o.Capacity.Value() == 3*gib
	})
	if got := f.metric(metricPendingWrites); got != 2 || gate.waiters() != 1 {
		t.Errorf("%v pending writes and %d held, want the same 2 and 1: created without waiting for them", got, gate.waiters())
	}
}

// Run returns once its context ends, with a write held in the client and
// others pending, or with nothing to write.
func TestWritersStopWithTheContext(t *testing.T) {
	t.Run("busy", func(t *testing.T) {
		f, _ := behindAPluggedWrite(t)
		f.stop()
	})
	t.Run("idle", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{objects: lateClassOn("n1")})
		f.startAt(10*gib, "n1")
		f.waitMetric(metricPendingWrites, 0)
		f.stop()
	})
}

func lateKey(node string) Key {
	return Key{Segment: NewSegment(map[string]string{topologyKey1: node}).Key(), Class: "late"}
}

// A write changes the capacity alone: everything else the object carries
// (kubectl's annotation, other labels, another controller's finalizer and
// owner) is written back as it was.
func TestAWriteKeepsEverythingElseOnTheObject(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: lateClassOn("n1"), workers: 1})
	f.startAt(10*gib, "n1")
	obj := testutil.Update(t, f.Client.StorageV1().CSIStorageCapacities(testNamespace), byNode(f.objects(), "late")["n1"].Name,
		func(obj *storagev1.CSIStorageCapacity) {
			obj.Labels["team"] = "storage"
			obj.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"kind":"CSIStorageCapacity"}`}
			obj.Finalizers = []string{"example.com/audit"}
			obj.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "inventory", UID: "cm-uid"}}
		})
	f.Eventually(t, "the controller's cache to hold the decorated object", func() bool {
		cached, err := f.ctrl.objectsOf(lateKey("n1"))
		return err == nil && len(cached) == 1 && len(cached[0].Finalizers) == 1
	})

	f.refresh(7*gib, "n1")
	written := f.waitFor("the new capacity", func(objs []storagev1.CSIStorageCapacity) bool {
		o, ok := byNode(objs, "late")["n1"]
		return ok && o.Capacity.Value() == 7*gib
	})
	got := byNode(written, "late")["n1"]
	if got.MaximumVolumeSize.Value() == obj.MaximumVolumeSize.Value() {
		t.Fatalf("maximumVolumeSize still %s: the fake driver's answer should have moved it too", got.MaximumVolumeSize)
	}
	want := obj.DeepCopy()
	// What the write is for, and what the API server keeps itself.
	want.Capacity, want.MaximumVolumeSize = got.Capacity, got.MaximumVolumeSize
	want.ResourceVersion, want.ManagedFields = got.ResourceVersion, got.ManagedFields
	if !equality.Semantic.DeepEqual(&got, want) {
		t.Errorf("the write changed more than the capacity:\n got %+v\nwant %+v", got, *want)
	}
}
