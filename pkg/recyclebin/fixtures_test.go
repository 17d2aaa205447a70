package recyclebin

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// setup is what a test starts from.
type setup struct {
	// retention is --volume-retention.
	retention time.Duration
	volumes   []*v1.PersistentVolume
	claims    []*v1.PersistentVolumeClaim
	classes   []*storagev1.StorageClass
	// owns is Options.Owns; nil owns every volume.
	owns func(pv *v1.PersistentVolume) (bool, error)
}

// env is a Bin and a Controller over started informers of a fake API
// server that enforces resourceVersion preconditions. Bin tests call the
// bin; controller tests start the workers with run and wait for syncs.
type env struct {
	*testutil.Env
	bin   *Bin
	ctrl  *Controller
	clock *testingclock.FakePassiveClock
	// events is the recorder the controller is given, rather than
	// Env.Events: it says which object each event is on.
	events    *eventLog
	handOvers *handOvers
	deletions *volumeDeletions
	// volumeCache is the PV informer's store.
	volumeCache cache.Store
	// syncs are the outcomes of the loop's syncs by PV name, results
	// what each asked of the loop.
	syncs   testutil.Syncs[string]
	results results
	// changed counts the changes the API server made to each PV.
	changed changes
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	m := NewMetrics()
	e := &env{
		Env: testutil.NewEnv(t, testutil.EnvOptions{
			Objects:            append(append(testutil.Objects(s.volumes...), testutil.Objects(s.claims...)...), testutil.Objects(s.classes...)...),
			StatusSubresources: []string{"persistentvolumes", "persistentvolumeclaims"},
			Metrics:            []testutil.MetricSet{m},
		}),
		clock:     testingclock.NewFakePassiveClock(start),
		events:    newEventLog(),
		handOvers: &handOvers{},
		deletions: &volumeDeletions{},
	}
	// The objects above are the cluster; only what comes after is the
	// code's.
	e.Client.ClearActions()
	volumes := e.Informers.Core().V1().PersistentVolumes()
	claims := e.Informers.Core().V1().PersistentVolumeClaims()
	e.volumeCache = volumes.Informer().GetStore()
	e.bin = NewBin(BinOptions{
		Policy:  Policy{Default: s.retention},
		Classes: e.Informers.Storage().V1().StorageClasses().Lister(),
		Claims:  claims.Lister(),
		Clock:   e.clock,
	})
	ctrl, err := New(Options{
		Client:         e.Client,
		VolumeInformer: volumes,
		ClaimInformer:  claims,
		Bin:            e.bin,
		Fit:            FitOptions{Driver: driver},
		HandOver:       e.handOvers.handOver,
		DeleteVolume:   e.deletions.delete,
		// The fixtures' PVs carry the library's finalizer.
		LibraryFinalizer: libraryFinalizer,
		Owns:             s.owns,
		EventRecorder:    e.events,
		Metrics:          m,
		Clock:            e.clock,
		RateLimiter:      testutil.InstantRetries[string](),
		Processed: func(name string, result reconcile.Result, err error) {
			e.results.add(name, result)
			e.syncs.Processed(name, result, err)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	t.Cleanup(ctrl.loop.ShutDown)
	e.changed.watch(t, e.Ctx, e.Client)
	e.StartInformers(t)
	return e
}

// run starts the workers; the test's cleanup stops them and waits.
func (e *env) run(t *testing.T) {
	t.Helper()
	e.Run(t, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// waitSyncs waits until name has been synced n times in all, and fails
// the test if a sync failed other than on a conflict: a sync that decided
// on a copy the cache had not yet updated fails on its write's pin, and
// the loop retries it on the fresher copy.
func (e *env) waitSyncs(t *testing.T, name string, n int) {
	t.Helper()
	for i, err := range e.syncs.Wait(t, e.Timeout, name, n) {
		if err != nil && !apierrors.IsConflict(err) {
			t.Fatalf("sync %d of %s: %v", i+1, name, err)
		}
	}
}

// resync queues name, as an event or a requeue does, and waits for one
// more sync of it, which decides on what the cache shows the API server
// has.
func (e *env) resync(t *testing.T, name string) {
	t.Helper()
	if pv, ok := testutil.Find(t, e.Client.CoreV1().PersistentVolumes(), name); ok {
		testutil.WaitCached(t, e.Timeout, e.volumeCache, name, pv.ResourceVersion)
	}
	n := e.syncs.Count(name)
	e.ctrl.loop.Add(name)
	e.waitSyncs(t, name, n+1)
}

// pv reads a PV from the API server.
func (e *env) pv(t *testing.T, name string) *v1.PersistentVolume {
	t.Helper()
	return testutil.PV(t, e.Client, name)
}

// updateVolume changes a PV on the API server, as a user does.
func (e *env) updateVolume(t *testing.T, name string, change volumeOption) {
	t.Helper()
	testutil.UpdatePV(t, e.Client, name, change)
}

// watching waits until the informers have started their watches, which
// they do after their caches synced: the requests the code sends can be
// told from theirs from then on.
func (e *env) watching(t *testing.T) {
	t.Helper()
	watches := func(resource string) int {
		return len(testutil.Actions(e.Client.Actions(), testutil.Verb("watch"), testutil.On(resource)))
	}
	e.Eventually(t, "the informers to watch", func() bool {
		// The PVs are also watched by the test (changed).
		return watches("persistentvolumes") == 2 && watches("persistentvolumeclaims") == 1 && watches("storageclasses") == 1
	})
}

// requests counts every request sent to the API server so far, reads and
// the informers' list and watch included.
func (e *env) requests() int { return len(e.Client.Actions()) }

// writes are the write requests sent to the API server for resource
// ("persistentvolumes"...), successful or not.
func (e *env) writes(resource string) []k8stesting.Action {
	return testutil.Actions(e.Client.Actions(), testutil.Writes, testutil.On(resource))
}

// volumePatches are the patches sent for PVs.
func (e *env) volumePatches() []k8stesting.PatchActionImpl {
	return testutil.Patches(e.Client.Actions(), testutil.On("persistentvolumes"))
}

// metric reads a recycle_bin metric by its short name.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.Registry, "csi_provisioner_recycle_bin_"+name)
}

// waitGauges waits until the gauges say volumes volumes of bytes in all
// are kept, or fails the test with what they say.
func (e *env) waitGauges(t *testing.T, what string, volumes, bytes float64) {
	t.Helper()
	e.Await(t, fmt.Sprintf("%s: %v volumes, %v bytes kept", what, volumes, bytes), func() error {
		gotVolumes, gotBytes := e.metric(t, "retained_volumes"), e.metric(t, "retained_bytes")
		if gotVolumes != volumes || gotBytes != bytes {
			return fmt.Errorf("the gauges say %v volumes, %v bytes", gotVolumes, gotBytes)
		}
		return nil
	})
}

func names(pvs []*v1.PersistentVolume) []string {
	var out []string
	for _, pv := range pvs {
		out = append(out, pv.Name)
	}
	return out
}
