package snapshotprotection

import (
	"context"
	"testing"
	"time"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	snapfake "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned/fake"
	snapinformers "github.com/kubernetes-csi/external-snapshotter/client/v8/informers/externalversions"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const namespace = "apps"

// env is the controller over informers of fake API servers (claims, and
// snapshots), with a real record of restores in flight.
type env struct {
	*testutil.Env
	snapClient *snapfake.Clientset
	ctrl       *Controller
	readers    *provisionstate.Readers
	synced     testutil.Syncs[cache.ObjectName]
}

type setup struct {
	claims    []*v1.PersistentVolumeClaim
	snapshots []*snapv1.VolumeSnapshot
	sweep     time.Duration
	// react, if set, adds reactors to the snapshot client before anything
	// uses it.
	react func(*snapfake.Clientset)
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	m := NewMetrics()
	e := &env{
		Env:        testutil.NewEnv(t, testutil.EnvOptions{Objects: testutil.Objects(s.claims...), Metrics: []testutil.MetricSet{m}}),
		snapClient: snapfake.NewSimpleClientset(testutil.Objects(s.snapshots...)...),
		readers:    provisionstate.NewReaders(),
	}
	if s.react != nil {
		s.react(e.snapClient)
	}
	snapFactory := snapinformers.NewSharedInformerFactory(e.snapClient, 0)
	// The module's generated VolumeSnapshot informer does not tell the
	// reflector that a fake client cannot stream lists (its group snapshot
	// informers do): register one that does, which the factory then hands
	// out.
	snapFactory.InformerFor(&snapv1.VolumeSnapshot{}, func(c snapclient.Interface, resync time.Duration) cache.SharedIndexInformer {
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return c.SnapshotV1().VolumeSnapshots("").List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return c.SnapshotV1().VolumeSnapshots("").Watch(ctx, o)
			},
		}
		return cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, c), &snapv1.VolumeSnapshot{}, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	})
	ctrl, err := New(Options{
		Client:           e.snapClient,
		SnapshotInformer: snapFactory.Snapshot().V1().VolumeSnapshots(),
		ClaimInformer:    e.Informers.Core().V1().PersistentVolumeClaims(),
		Readers:          e.readers,
		SweepInterval:    s.sweep,
		EventRecorder:    e.Events,
		Metrics:          m,
		Processed:        e.synced.Processed,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	e.StartInformers(t, snapFactory)
	return e
}

// run starts the workers until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	e.Run(t, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

func keyOf(name string) cache.ObjectName { return cache.ObjectName{Namespace: namespace, Name: name} }

// syncs is how many syncs of snapshot name have finished.
func (e *env) syncs(name string) int { return e.synced.Count(keyOf(name)) }

// waitSynced waits until snapshot name was synced more than after times.
func (e *env) waitSynced(t *testing.T, name string, after int) {
	t.Helper()
	e.synced.WaitAfter(t, e.Timeout, keyOf(name), after)
}

func (e *env) snapshot(t *testing.T, name string) *snapv1.VolumeSnapshot {
	t.Helper()
	return testutil.Get(t, e.snapClient.SnapshotV1().VolumeSnapshots(namespace), name)
}

func (e *env) protected(t *testing.T, name string) bool {
	t.Helper()
	return finalizer.Has(e.snapshot(t, name), provisionstate.SnapshotSourceProtectionFinalizer)
}

func (e *env) waitReleased(t *testing.T, name string) {
	t.Helper()
	e.Eventually(t, "the source-protection finalizer of "+name+" to go", func() bool { return !e.protected(t, name) })
}

// runAndExpectKept starts the workers, waits for the first sync of
// snapshot name and fails the test, saying why the finalizer had to stay,
// if it went.
func (e *env) runAndExpectKept(t *testing.T, name, why string) {
	t.Helper()
	e.run(t)
	e.waitSynced(t, name, 0)
	if !e.protected(t, name) {
		t.Fatal("finalizer removed " + why)
	}
}

func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.Registry, "csi_provisioner_snapshot_source_protection_"+name)
}

func protectedSnapshot(name string) *snapv1.VolumeSnapshot {
	return testutil.NewSnapshot(namespace, name, testutil.WithResourceVersion("5"),
		testutil.WithFinalizers("snapshot.storage.kubernetes.io/volumesnapshot-bound-protection", provisionstate.SnapshotSourceProtectionFinalizer))
}

// restoreClaim restores from snapshot; volume is its PV's name, "" while it
// waits for one.
func restoreClaim(name, snapshot, volume string) *v1.PersistentVolumeClaim {
	return testutil.NewClaim(namespace, name, testutil.FromSnapshot(snapshot), testutil.WithVolumeName(volume))
}
