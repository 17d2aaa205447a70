package cleanup

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestNewValidatesOptions(t *testing.T) {
	client := fake.NewClientset()
	lc := newLocalClient()
	events := &eventLog{}
	factory := informers.NewSharedInformerFactory(client, 0)
	pvs, nodes := factory.Core().V1().PersistentVolumes(), factory.Core().V1().Nodes()
	complete := func(change func(*Options)) Options {
		o := Options{Client: client, LocalClient: lc, EventRecorder: events, VolumeInformer: pvs, NodeInformer: nodes, Enabled: true}
		change(&o)
		return o
	}
	for _, tc := range []struct {
		name  string
		opts  Options
		valid bool
	}{
		{"complete", complete(func(*Options) {}), true},
		{"off without PV and Node informers", Options{Client: client, LocalClient: lc, EventRecorder: events}, true},
		{"no client", complete(func(o *Options) { o.Client = nil }), false},
		{"no LocalVolume client", complete(func(o *Options) { o.LocalClient = nil }), false},
		{"no event recorder", complete(func(o *Options) { o.EventRecorder = nil }), false},
		{"on without PV informer", complete(func(o *Options) { o.VolumeInformer = nil }), false},
		{"on without Node informer", complete(func(o *Options) { o.NodeInformer = nil }), false},
		{"negative grace", complete(func(o *Options) { o.NodeGoneGrace = -time.Second }), false},
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
	if _, err := New(complete(func(*Options) {})); err != nil {
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
			owners:       []ownerObject{newOwner(kind)},
			volumes:      []*corev1.PersistentVolume{newPV("pv", kind)},
			nodes:        []*corev1.Node{newNode(testNode)},
			ownInformers: true,
		})
		e.run(t)
		e.Eventually(t, "the finalizer", func() bool { return hasOwnerFinalizer(e.owner(t, kind)) })

		// Only the sync that added it could have deleted the PV: nothing
		// else queues an owner that is not being deleted.
		e.syncs.Wait(t, 5*time.Second, keyOf(kind), 1)
		if d := e.deletes(); len(d) != 0 {
			t.Fatalf("deletes = %v before the owner's deletion", d)
		}

		// kubectl delete: the API server sets the deletionTimestamp.
		e.deleteOwner(t, kind)
		e.Eventually(t, "the PV's deletion", func() bool {
			pv := e.pv(t, "pv")
			return pv != nil && pv.DeletionTimestamp != nil
		})
		if !hasOwnerFinalizer(e.owner(t, kind)) {
			t.Fatal("finalizer removed while the PV is still there")
		}

		e.agentReleases(t, "pv")
		e.Eventually(t, "the owner to go", func() bool { return e.owner(t, kind) == nil })
		// The completion event is recorded just after the write that
		// let the owner go.
		e.Eventually(t, "the completion event", func() bool { return len(e.events.all()) >= 2 })
		reasons := []string{}
		for _, ev := range e.events.all() {
			reasons = append(reasons, ev.reason)
		}
		if len(reasons) != 2 || reasons[0] != ReasonVolumeReleased || reasons[1] != ReasonDeletionCompleted {
			t.Errorf("event reasons = %v, want %s then %s", reasons, ReasonVolumeReleased, ReasonDeletionCompleted)
		}
		if logs := e.Logs.Errors(); len(logs) != 0 {
			t.Errorf("error logs = %v", logs)
		}
	})
}

// A node deleted while its PV waits for its agent gets the owner synced,
// and synced again when the grace period ends.
func TestRunLetsGoOfDeletedNode(t *testing.T) {
	e := newEnv(t, setup{
		owners:    []ownerObject{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)},
		volumes:   []*corev1.PersistentVolume{newPV("pv", KindLocalVolumeSet, testutil.Deleting())},
		nodes:     []*corev1.Node{newNode(testNode)},
		realClock: true,
		grace:     100 * time.Millisecond,
	})
	e.run(t)
	// The first sync sees the node present.
	e.syncs.Wait(t, 5*time.Second, keyOf(KindLocalVolumeSet), 1)
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("writes = %v while the node is there", w)
	}
	e.deleteNode(t, testNode)
	e.Eventually(t, "the owner to go", func() bool { return e.owner(t, KindLocalVolumeSet) == nil })
	if got := withReason(e.events.all(), ReasonVolumeAbandoned); len(got) != 1 {
		t.Errorf("events = %v, want one %s", e.events.all(), ReasonVolumeAbandoned)
	}
}

// Turning the gate off lets an owner stuck in deletion go, through Run.
func TestRunGateOff(t *testing.T) {
	e := newEnv(t, setup{
		owners:   []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes:  []*corev1.PersistentVolume{newPV("pv", KindLocalVolume, boundTo("app", "db"))},
		disabled: true,
	})
	e.run(t)
	e.Eventually(t, "the owner to go", func() bool { return e.owner(t, KindLocalVolume) == nil })
}

func TestRunStopsWhenContextEnds(t *testing.T) {
	e := newEnv(t, setup{owners: []ownerObject{newOwner(KindLocalVolume)}, ownInformers: true})
	stop := testutil.Start(t, e.Ctx, func(ctx context.Context) error { e.ctrl.Run(ctx, 3); return nil })
	e.Eventually(t, "the workers to add the finalizer", func() bool { return hasOwnerFinalizer(e.owner(t, KindLocalVolume)) })
	// It fails the test if Run does not return.
	stop()
	// A queue that is shut down takes no more keys.
	e.ctrl.loop.Add(keyOf(KindLocalVolumeSet))
	if e.ctrl.loop.Len() != 0 {
		t.Error("Run returned with its queue still open")
	}
}

// Run must not hang on caches that never sync.
func TestRunStopsBeforeCacheSync(t *testing.T) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0) // never started
	c, err := New(Options{
		Client: client, LocalClient: newLocalClient(), EventRecorder: &eventLog{},
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
	c.loop.Add(keyOf(KindLocalVolume))
	if c.loop.Len() != 0 {
		t.Error("Run returned with its queue still open")
	}
}
