package pvprotection

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const (
	testDriver  = "csi.example.com"
	otherDriver = "other.example.com"
)

// newPV is a PV of testDriver, Available, without finalizers.
func newPV(name string, opts ...testutil.VolumeOption) *v1.PersistentVolume {
	return testutil.NewPV(name, append([]testutil.VolumeOption{testutil.WithCSI(testDriver, "h-"+name), testutil.WithResourceVersion("1")}, opts...)...)
}

// driver makes the PV one of driver d.
func driver(d string) testutil.VolumeFunc {
	return func(pv *v1.PersistentVolume) { pv.Spec.CSI.Driver = d }
}

// protected gives the PV this controller's finalizer.
var protected = testutil.WithFinalizers(Finalizer)

// setup is what a test starts from.
type setup struct {
	volumes    []*v1.PersistentVolume
	allVolumes bool
	// inTreePlugin is the in-tree plugin the driver replaces.
	inTreePlugin string
	// limiter replaces the default rate limiter, to make retries fast.
	limiter workqueue.TypedRateLimiter[string]
}

// env is a controller over started informers of a fake clientset. Tests
// either call sync themselves or start the workers with run.
type env struct {
	*testutil.Env
	ctrl *Controller
	// store is the informer's, for writing to the cache as the
	// provisioning library does.
	store cache.Store
	// syncs are the outcomes of the loop's syncs, by PV name.
	syncs testutil.Syncs[string]
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	m := NewMetrics()
	// The plain fake: it keeps a resourceVersion across writes (see sync),
	// and deletes an object whatever its finalizers.
	e := &env{Env: testutil.NewEnv(t, testutil.EnvOptions{
		Client:  fake.NewClientset(testutil.Objects(s.volumes...)...),
		Metrics: []testutil.MetricSet{m},
	})}
	volumes := e.Informers.Core().V1().PersistentVolumes()
	ctrl, err := New(Options{
		Client:         e.Client,
		VolumeInformer: volumes,
		DriverName:     testDriver,
		InTreePlugin:   s.inTreePlugin,
		AllVolumes:     s.allVolumes,
		EventRecorder:  e.Events,
		Metrics:        m,
		RateLimiter:    s.limiter,
		Processed:      e.syncs.Processed,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl, e.store = ctrl, volumes.Informer().GetStore()
	e.StartInformers(t)
	t.Cleanup(ctrl.loop.ShutDown)
	return e
}

// run starts the workers; the test's cleanup stops them and waits.
func (e *env) run(t *testing.T) {
	t.Helper()
	e.Run(t, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// sync runs one sync of name, as a worker would, after waiting for the
// cache to show the finalizer state the API server has: the fake clientset
// keeps the resourceVersion across writes, so a stale cache would not be
// caught by the patch precondition the way a real API server catches it.
func (e *env) sync(t *testing.T, name string) error {
	t.Helper()
	want := testutil.PV(t, e.Client, name).Finalizers
	testutil.WaitCachedThat(t, e.Timeout, e.store, name, func(c *v1.PersistentVolume) bool { return slices.Equal(c.Finalizers, want) })
	return e.syncNow(t, name)
}

// syncNow runs one sync of name on whatever the cache has, and checks that
// it asks for nothing but events.
func (e *env) syncNow(t *testing.T, name string) error {
	t.Helper()
	result, err := e.ctrl.sync(e.Ctx, name)
	if result != reconcile.Done {
		t.Errorf("sync of %s asked for %+v; PV protection only waits for events", name, result)
	}
	return err
}

// hasFinalizer tells whether the PV name has the finalizer on the API
// server.
func (e *env) hasFinalizer(t *testing.T, name string) bool {
	t.Helper()
	return slices.Contains(testutil.PV(t, e.Client, name).Finalizers, Finalizer)
}

// pvPatch keeps the patches of PVs, this controller's only write.
var pvPatch = []testutil.ActionFilter{testutil.Verb("patch"), testutil.On("persistentvolumes")}

// patches counts the patch calls sent to the fake API server.
func (e *env) patches() int { return len(testutil.Actions(e.Client.Actions(), pvPatch...)) }

// metric returns the value of a pv_protection metric by its short name.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.Registry, "csi_provisioner_pv_protection_"+name)
}
