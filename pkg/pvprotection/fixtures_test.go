package pvprotection

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const (
	testDriver  = "csi.example.com"
	otherDriver = "other.example.com"
)

// pvOption changes a test PV.
type pvOption func(*v1.PersistentVolume)

// newPV is a PV of testDriver, Available, without finalizers.
func newPV(name string, opts ...pvOption) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			CSI: &v1.CSIPersistentVolumeSource{Driver: testDriver, VolumeHandle: "h-" + name},
		}},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

func driver(d string) pvOption {
	return func(pv *v1.PersistentVolume) { pv.Spec.CSI.Driver = d }
}

// notCSI makes the PV an in-tree (host path) volume.
func notCSI(pv *v1.PersistentVolume) {
	pv.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/tmp"}}
}

func protected(pv *v1.PersistentVolume) { pv.Finalizers = append(pv.Finalizers, Finalizer) }

func deleting(pv *v1.PersistentVolume) {
	now := metav1.Now()
	pv.DeletionTimestamp = &now
}

func phase(p v1.PersistentVolumePhase) pvOption {
	return func(pv *v1.PersistentVolume) { pv.Status.Phase = p }
}

func boundTo(namespace, name string) pvOption {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: namespace, Name: name}
		pv.Status.Phase = v1.VolumeBound
	}
}

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
	client   *fake.Clientset
	ctrl     *Controller
	recorder *record.FakeRecorder
	registry metrics.KubeRegistry
	ctx      context.Context
	logs     ktesting.Buffer
	// store is the informer's, for writing to the cache as the
	// provisioning library does.
	store cache.Store
	// syncs are the outcomes of the loop's syncs, by PV name.
	syncs testutil.Syncs[string]
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	// Buffered so tests can check what was logged at error level.
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	client := fake.NewClientset()
	for _, pv := range s.volumes {
		if _, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	registry := metrics.NewKubeRegistry()
	m := NewMetrics()
	registry.MustRegister(m.Registerables()...)
	registry.CustomMustRegister(m.Collectors()...)
	factory := informers.NewSharedInformerFactory(client, 0)
	recorder := record.NewFakeRecorder(100)
	e := &env{client: client, recorder: recorder, registry: registry, ctx: ctx,
		store: factory.Core().V1().PersistentVolumes().Informer().GetStore()}
	ctrl, err := New(Options{
		Client:         client,
		VolumeInformer: factory.Core().V1().PersistentVolumes(),
		DriverName:     testDriver,
		InTreePlugin:   s.inTreePlugin,
		AllVolumes:     s.allVolumes,
		EventRecorder:  recorder,
		Metrics:        m,
		RateLimiter:    s.limiter,
		Processed:      e.syncs.Processed,
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	t.Cleanup(func() {
		cancel()
		ctrl.loop.ShutDown()
		factory.Shutdown()
	})
	e.ctrl = ctrl
	e.logs = logger.GetSink().(ktesting.Underlier).GetBuffer()
	return e
}

// run starts the workers; the test's cleanup stops them and waits.
func (e *env) run(t *testing.T) {
	t.Helper()
	testutil.RunUntilCleanup(t, e.ctx, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// waitSyncs waits until the loop has synced name more than after times,
// and returns the outcome of the sync after the first after.
func (e *env) waitSyncs(t *testing.T, name string, after int) error {
	t.Helper()
	return e.syncs.Wait(t, 5*time.Second, name, after+1)[after]
}

// pv reads a PV from the fake API server.
func (e *env) pv(t *testing.T, name string) *v1.PersistentVolume {
	t.Helper()
	return testutil.PV(t, e.client, name)
}

// update writes a changed PV to the fake API server. It does not wait for
// the cache: running workers may change the PV again at once.
func (e *env) update(t *testing.T, name string, change pvOption) {
	t.Helper()
	testutil.UpdatePV(t, e.client, name, change)
}

// sync runs one sync of name, as a worker would, after waiting for the
// cache to show the finalizer state the API server has: the fake clientset
// keeps the resourceVersion across writes, so a stale cache would not be
// caught by the patch precondition the way a real API server catches it.
func (e *env) sync(t *testing.T, name string) error {
	t.Helper()
	want := e.pv(t, name).Finalizers
	e.waitCached(t, name, func(c *v1.PersistentVolume) bool { return slices.Equal(c.Finalizers, want) })
	return e.syncNow(t, name)
}

// syncNow runs one sync of name on whatever the cache has, and checks that
// it asks for nothing but events.
func (e *env) syncNow(t *testing.T, name string) error {
	t.Helper()
	result, err := e.ctrl.sync(e.ctx, name)
	if result != reconcile.Done {
		t.Errorf("sync of %s asked for %+v; PV protection only waits for events", name, result)
	}
	return err
}

func (e *env) waitCached(t *testing.T, name string, cond func(*v1.PersistentVolume) bool) {
	t.Helper()
	eventually(t, "the cache to show "+name, func() bool {
		pv, err := e.ctrl.volumes.Get(name)
		return err == nil && cond(pv)
	})
}

// patches counts the patch calls sent to the fake API server.
func (e *env) patches() int {
	n := 0
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "patch" {
			n++
		}
	}
	return n
}

// events drains the recorded events.
func (e *env) events() []string { return testutil.Drain(e.recorder.Events) }

// errorLogs returns the error-level log entries written so far.
func (e *env) errorLogs() []string { return testutil.ErrorLogs(e.logs) }

// metric returns the value of a pv_protection metric by its short name.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.registry, "csi_provisioner_pv_protection_"+name)
}

func hasFinalizer(pv *v1.PersistentVolume) bool { return slices.Contains(pv.Finalizers, Finalizer) }

// withReason keeps the events of one reason.
func withReason(events []string, reason string) []string {
	var out []string
	for _, ev := range events {
		if strings.HasPrefix(ev, v1.EventTypeNormal+" "+reason+" ") {
			out = append(out, ev)
		}
	}
	return out
}

// eventually polls cond until it holds or fails the test after 5s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, what, cond)
}
