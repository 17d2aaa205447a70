package cleanup

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"
)

func TestNewValidatesOptions(t *testing.T) {
	client := fake.NewClientset()
	dyn := newFakeDynamicClient(runtime.NewScheme(), listKinds)
	factory := informers.NewSharedInformerFactory(client, 0)
	pvs, nodes := factory.Core().V1().PersistentVolumes(), factory.Core().V1().Nodes()
	for _, tc := range []struct {
		name  string
		opts  Options
		valid bool
	}{
		{"complete", Options{Client: client, Dynamic: dyn, VolumeInformer: pvs, NodeInformer: nodes, Enabled: true}, true},
		{"off without PV and Node informers", Options{Client: client, Dynamic: dyn}, true},
		{"no client", Options{Dynamic: dyn, VolumeInformer: pvs, NodeInformer: nodes, Enabled: true}, false},
		{"no dynamic client", Options{Client: client, VolumeInformer: pvs, NodeInformer: nodes, Enabled: true}, false},
		{"on without PV informer", Options{Client: client, Dynamic: dyn, NodeInformer: nodes, Enabled: true}, false},
		{"on without Node informer", Options{Client: client, Dynamic: dyn, VolumeInformer: pvs, Enabled: true}, false},
		{"negative grace", Options{Client: client, Dynamic: dyn, VolumeInformer: pvs, NodeInformer: nodes, Enabled: true, NodeGoneGrace: -time.Second}, false},
	} {
		c, err := New(tc.opts)
		if tc.valid && (err != nil || c == nil) {
			t.Errorf("%s: New = %v, %v; want a controller", tc.name, c, err)
		}
		if !tc.valid && err == nil {
			t.Errorf("%s: New succeeded, want an error", tc.name)
		}
	}
	// Two controllers on the same informers share the indexes.
	if _, err := New(Options{Client: client, Dynamic: dyn, VolumeInformer: pvs, NodeInformer: nodes, Enabled: true}); err != nil {
		t.Errorf("second controller on the same informers: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	e := newEnv(t, setup{realClock: true})
	if e.ctrl.nodeGoneGrace != DefaultNodeGoneGrace {
		t.Errorf("grace = %v, want %v", e.ctrl.nodeGoneGrace, DefaultNodeGoneGrace)
	}
	if e.ctrl.clock == nil {
		t.Error("no clock")
	}
}

// The whole course with the workers, the controller's own CR informers and
// the event handlers: the finalizer is added to a new owner; its deletion
// deletes the unbound PV; the node agent's release of it lets the owner go.
func TestRunDeletesOwner(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners:       []*unstructured.Unstructured{newOwner(kind)},
			volumes:      []*corev1.PersistentVolume{newPV("pv", kind)},
			nodes:        []*corev1.Node{newNode(testNode)},
			ownInformers: true,
		})
		e.run(t)
		eventually(t, "the finalizer", func() bool { return hasOwnerFinalizer(e.owner(t, kind)) })
		if d := e.deletes(); len(d) != 0 {
			t.Fatalf("deletes = %v before the owner's deletion", d)
		}

		// kubectl delete: the API server sets the deletionTimestamp.
		owner := e.owner(t, kind)
		deletingOwner(owner)
		owner.SetResourceVersion(strconv.FormatInt(e.rv.Add(1), 10))
		if err := e.dyn.Tracker().Update(e.ctrl.kinds[kind].gvr, owner, testNS); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the PV's deletion", func() bool {
			pv := e.pv(t, "pv")
			return pv != nil && pv.DeletionTimestamp != nil
		})
		if !hasOwnerFinalizer(e.owner(t, kind)) {
			t.Fatal("finalizer removed while the PV is still there")
		}

		e.agentReleases(t, "pv")
		eventually(t, "the owner to go", func() bool { return e.owner(t, kind) == nil })
		// The completion event is recorded just after the write that
		// let the owner go.
		eventually(t, "the completion event", func() bool { return len(e.events.all()) >= 2 })
		reasons := []string{}
		for _, ev := range e.events.all() {
			reasons = append(reasons, ev.reason)
		}
		if len(reasons) != 2 || reasons[0] != ReasonVolumeReleased || reasons[1] != ReasonDeletionCompleted {
			t.Errorf("event reasons = %v, want %s then %s", reasons, ReasonVolumeReleased, ReasonDeletionCompleted)
		}
		if logs := e.errorLogs(); len(logs) != 0 {
			t.Errorf("error logs = %v", logs)
		}
	})
}

// A node deleted while its PV waits for its agent gets the owner synced,
// and synced again when the grace period ends.
func TestRunLetsGoOfDeletedNode(t *testing.T) {
	e := newEnv(t, setup{
		owners:    []*unstructured.Unstructured{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)},
		volumes:   []*corev1.PersistentVolume{newPV("pv", KindLocalVolumeSet, deletingPV)},
		nodes:     []*corev1.Node{newNode(testNode)},
		realClock: true,
		grace:     100 * time.Millisecond,
	})
	e.run(t)
	// Let the first sync see the node present.
	time.Sleep(50 * time.Millisecond)
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("writes = %v while the node is there", w)
	}
	e.deleteNode(t, testNode)
	eventually(t, "the owner to go", func() bool { return e.owner(t, KindLocalVolumeSet) == nil })
	if got := withReason(e.events.all(), ReasonVolumeAbandoned); len(got) != 1 {
		t.Errorf("events = %v, want one %s", e.events.all(), ReasonVolumeAbandoned)
	}
}

// Turning the gate off lets an owner stuck in deletion go, through Run.
func TestRunGateOff(t *testing.T) {
	e := newEnv(t, setup{
		owners:   []*unstructured.Unstructured{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes:  []*corev1.PersistentVolume{newPV("pv", KindLocalVolume, boundTo("app", "db"))},
		disabled: true,
	})
	e.run(t)
	eventually(t, "the owner to go", func() bool { return e.owner(t, KindLocalVolume) == nil })
}

func TestRunStopsWhenContextEnds(t *testing.T) {
	e := newEnv(t, setup{owners: []*unstructured.Unstructured{newOwner(KindLocalVolume)}, ownInformers: true})
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { e.ctrl.Run(ctx, 3); close(done) }()
	eventually(t, "the workers to add the finalizer", func() bool { return hasOwnerFinalizer(e.owner(t, KindLocalVolume)) })
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if !e.ctrl.queue.ShuttingDown() {
		t.Error("Run returned with its queue still open")
	}
}

// Run must not hang on caches that never sync.
func TestRunStopsBeforeCacheSync(t *testing.T) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0) // never started
	c, err := New(Options{
		Client: client, Dynamic: newFakeDynamicClient(runtime.NewScheme(), listKinds),
		VolumeInformer: factory.Core().V1().PersistentVolumes(), NodeInformer: factory.Core().V1().Nodes(), Enabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() { c.Run(ctx, 1); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if !c.queue.ShuttingDown() {
		t.Error("Run returned with its queue still open")
	}
}
