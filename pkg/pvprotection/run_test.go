package pvprotection

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestNewValidatesOptions(t *testing.T) {
	e := testutil.NewEnv(t, testutil.EnvOptions{})
	client, pvs, recorder := e.Client, e.Informers.Core().V1().PersistentVolumes(), e.Events
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
	stop := testutil.Start(t, e.Ctx, func(ctx context.Context) error { e.ctrl.Run(ctx, 3); return nil })
	e.Eventually(t, "the workers to add the finalizer", func() bool { return e.hasFinalizer(t, "pv") })
	stop()
	if queueOpen(e.ctrl) {
		t.Error("Run returned with its queue still open")
	}
}

// Run must not hang on a cache that never syncs.
func TestRunStopsBeforeCacheSync(t *testing.T) {
	e := testutil.NewEnv(t, testutil.EnvOptions{}) // its informers never start
	c, err := New(Options{Client: e.Client, VolumeInformer: e.Informers.Core().V1().PersistentVolumes(),
		DriverName: testDriver, EventRecorder: e.Events})
	if err != nil {
		t.Fatal(err)
	}
	stop := testutil.Start(t, e.Ctx, func(ctx context.Context) error { c.Run(ctx, 1); return nil })
	stop()
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
