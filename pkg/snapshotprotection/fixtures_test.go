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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const namespace = "apps"

// env is the controller over informers of fake API servers (claims, and
// snapshots), with a real record of restores in flight.
type env struct {
	claimClient kubernetes.Interface
	snapClient  *snapfake.Clientset
	ctrl        *Controller
	readers     *provisionstate.Readers
	recorder    *record.FakeRecorder
	registry    metrics.KubeRegistry
	ctx         context.Context
	synced      testutil.Syncs[cache.ObjectName]
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
	var claims, snapshots []runtime.Object
	for _, c := range s.claims {
		claims = append(claims, c)
	}
	for _, sn := range s.snapshots {
		snapshots = append(snapshots, sn)
	}
	client := testutil.NewClientset(claims...)
	e := &env{
		claimClient: client,
		snapClient:  snapfake.NewSimpleClientset(snapshots...),
		readers:     provisionstate.NewReaders(),
		recorder:    record.NewFakeRecorder(100),
		registry:    metrics.NewKubeRegistry(),
	}
	if s.react != nil {
		s.react(e.snapClient)
	}
	m := NewMetrics()
	e.registry.MustRegister(m.Registerables()...)
	factory := informers.NewSharedInformerFactory(client, 0)
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
		ClaimInformer:    factory.Core().V1().PersistentVolumeClaims(),
		Readers:          e.readers,
		SweepInterval:    s.sweep,
		EventRecorder:    e.recorder,
		Metrics:          m,
		Processed:        e.synced.Processed,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	ctx, cancel := context.WithCancel(context.Background())
	e.ctx = ctx
	factory.Start(ctx.Done())
	snapFactory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
		snapFactory.Shutdown()
	})
	return e
}

// run starts the workers until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	testutil.RunUntilCleanup(t, e.ctx, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// syncs is how many syncs of snapshot name have finished.
func (e *env) syncs(name string) int {
	return e.synced.Count(cache.ObjectName{Namespace: namespace, Name: name})
}

// waitSynced waits until snapshot name was synced more than after times.
func (e *env) waitSynced(t *testing.T, name string, after int) {
	t.Helper()
	e.synced.Wait(t, 5*time.Second, cache.ObjectName{Namespace: namespace, Name: name}, after+1)
}

func (e *env) snapshot(t *testing.T, name string) *snapv1.VolumeSnapshot {
	t.Helper()
	s, err := e.snapClient.SnapshotV1().VolumeSnapshots(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *env) protected(t *testing.T, name string) bool {
	t.Helper()
	return finalizer.Has(e.snapshot(t, name), provisionstate.SnapshotSourceProtectionFinalizer)
}

func (e *env) waitReleased(t *testing.T, name string) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, "the source-protection finalizer of "+name+" to go", func() bool {
		return !e.protected(t, name)
	})
}

func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.registry, "csi_provisioner_snapshot_source_protection_"+name)
}

func protectedSnapshot(name string) *snapv1.VolumeSnapshot {
	return &snapv1.VolumeSnapshot{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: namespace, UID: types.UID("uid-" + name), ResourceVersion: "5",
		Finalizers: []string{"snapshot.storage.kubernetes.io/volumesnapshot-bound-protection", provisionstate.SnapshotSourceProtectionFinalizer},
	}}
}

// restoreClaim restores from snapshot; volume is its PV's name, "" while it
// waits for one.
func restoreClaim(name, snapshot, volume string) *v1.PersistentVolumeClaim {
	ref := &v1.TypedObjectReference{APIGroup: ptr.To(provisionstate.SnapshotAPIGroup), Kind: provisionstate.SnapshotKind, Name: snapshot}
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID("uid-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:     v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
			DataSourceRef: ref,
			VolumeName:    volume,
		},
	}
}
