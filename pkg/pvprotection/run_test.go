package pvprotection

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
)

func TestNewValidatesOptions(t *testing.T) {
	client := fake.NewClientset()
	pvs := informers.NewSharedInformerFactory(client, 0).Core().V1().PersistentVolumes()
	recorder := record.NewFakeRecorder(1)
	for _, tc := range []struct {
		name  string
		opts  Options
		valid bool
	}{
		{"complete", Options{Client: client, VolumeInformer: pvs, DriverName: testDriver, EventRecorder: recorder}, true},
		{"all volumes without driver", Options{Client: client, VolumeInformer: pvs, AllVolumes: true, EventRecorder: recorder}, true},
		{"no client", Options{VolumeInformer: pvs, DriverName: testDriver, EventRecorder: recorder}, false},
		{"no informer", Options{Client: client, DriverName: testDriver, EventRecorder: recorder}, false},
		{"no driver", Options{Client: client, VolumeInformer: pvs, EventRecorder: recorder}, false},
		{"no event recorder", Options{Client: client, VolumeInformer: pvs, DriverName: testDriver}, false},
	} {
		c, err := New(tc.opts)
		if tc.valid && (err != nil || c == nil) {
			t.Errorf("%s: New = %v, %v; want a controller", tc.name, c, err)
		}
		if !tc.valid && err == nil {
			t.Errorf("%s: New succeeded, want an error", tc.name)
		}
	}
}

func TestRunStopsWhenContextEnds(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv")}})
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { e.ctrl.Run(ctx, 3); close(done) }()
	eventually(t, "the workers to add the finalizer", func() bool { return hasFinalizer(e.pv(t, "pv")) })
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if queueOpen(e.ctrl) {
		t.Error("Run returned with its queue still open")
	}
}

// Run must not hang on a cache that never syncs.
func TestRunStopsBeforeCacheSync(t *testing.T) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0) // never started
	c, err := New(Options{Client: client, VolumeInformer: factory.Core().V1().PersistentVolumes(),
		DriverName: testDriver, EventRecorder: record.NewFakeRecorder(1)})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { c.Run(ctx, 1); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if queueOpen(c) {
		t.Error("Run returned with its queue still open")
	}
}

// queueOpen tells whether c's queue still takes keys: a shut-down queue
// drops them.
func queueOpen(c *Controller) bool {
	before := c.loop.Len()
	c.loop.Add("not-a-pv")
	return c.loop.Len() != before
}
