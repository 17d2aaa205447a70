package pvprotection

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// BenchmarkSync measures one sync of a PV being deleted: one that is
// released (a finalizer patch) and one a claim holds (a cache read).
func BenchmarkSync(b *testing.B) {
	for _, bc := range []struct {
		name    string
		pv      *v1.PersistentVolume
		patches int
	}{
		{"deleting-unbound", newPV("pv", protected, testutil.Deleting(), testutil.WithVolumePhase(v1.VolumeReleased)), 1},
		{"held-bound", newPV("pv", protected, testutil.Deleting(), testutil.BoundTo("ns", "db", "")), 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client := fake.NewClientset()
			// Answer patches directly: the object tracker's JSON round trips
			// would measure the fake, not the controller. The fake still
			// records each call.
			client.PrependReactor("patch", "persistentvolumes", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, bc.pv, nil
			})
			factory := informers.NewSharedInformerFactory(client, 0)
			pvs := factory.Core().V1().PersistentVolumes()
			c, err := New(Options{Client: client, VolumeInformer: pvs, DriverName: testDriver, EventRecorder: record.NewFakeRecorder(1)})
			if err != nil {
				b.Fatal(err)
			}
			// The informer never runs: its cache keeps exactly this PV, so
			// every sync makes the same decision.
			testutil.AddTo(b, pvs.Informer().GetIndexer(), bc.pv)
			ctx := klog.NewContext(context.Background(), logr.Discard())
			// Check once that the sync does what the name says.
			if _, err := c.sync(ctx, "pv"); err != nil {
				b.Fatal(err)
			}
			if got := len(client.Actions()); got != bc.patches {
				b.Fatalf("%d API calls, want %d: %v", got, bc.patches, client.Actions())
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if _, err := c.sync(ctx, "pv"); err != nil {
					b.Fatal(err)
				}
				// Not len(client.Actions()): it copies every recorded
				// call, and that copy was most of what this measured.
				if n++; n%1024 == 0 {
					client.ClearActions()
				}
			}
		})
	}
}
