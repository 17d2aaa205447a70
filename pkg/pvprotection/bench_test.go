package pvprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

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
			e := testutil.NewEnv(b, testutil.EnvOptions{Client: fake.NewClientset()})
			client := e.Client
			// Patches are answered directly (see testutil.AnswerWith).
			testutil.AnswerWith(client, "patch", "persistentvolumes", bc.pv)
			pvs := e.Informers.Core().V1().PersistentVolumes()
			c, err := New(Options{Client: client, VolumeInformer: pvs, DriverName: testDriver, EventRecorder: e.Events})
			if err != nil {
				b.Fatal(err)
			}
			// The informer never runs: its cache keeps exactly this PV, so
			// every sync makes the same decision.
			testutil.AddTo(b, pvs.Informer().GetIndexer(), bc.pv)
			ctx := testutil.QuietContext()
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
