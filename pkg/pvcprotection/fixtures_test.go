package pvcprotection

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	testingclock "k8s.io/utils/clock/testing"
)

const (
	testNS     = "ns"
	testDriver = "csi.example.com"
	testNode   = "node-1"
)

// newClaim is a claim of testDriver that carries the finalizer.
func newClaim(name string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: testNS, UID: types.UID(name + "-uid"), ResourceVersion: "1",
		Annotations: map[string]string{driverscope.AnnStorageProvisioner: testDriver},
		Finalizers:  []string{Finalizer},
	}}
}

func deleting(c *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	now := metav1.Now()
	c.DeletionTimestamp = &now
	return c
}

// newPod is a pod on node (unscheduled if "") using the named claims.
func newPod(name, node string, claims ...string) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID(name + "-uid"), ResourceVersion: "1"},
		Spec:       v1.PodSpec{NodeName: node},
	}
	for i, c := range claims {
		pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{
			Name:         "vol" + string(rune('a'+i)),
			VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c}},
		})
	}
	return pod
}

// ephemeralPod is a pod with a generic ephemeral volume, and that volume's
// claim, owned by the pod if owned.
func ephemeralPod(name, volume string, owned bool) (*v1.Pod, *v1.PersistentVolumeClaim) {
	pod := newPod(name, testNode)
	pod.Spec.Volumes = []v1.Volume{{Name: volume, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}}
	claim := newClaim(name + "-" + volume)
	if owned {
		claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: name, UID: pod.UID, Controller: ptr.To(true)}}
	}
	return pod, claim
}

func withRV(pod *v1.Pod, rv string) *v1.Pod {
	pod.ResourceVersion = rv
	return pod
}

func newClass(name, provisioner string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner}
}

// setup is what a test starts from. Claims and pods are in the API and, for
// pods unless apiOnly, in the controller's caches; the informers do not run,
// so a test moves the caches itself.
type setup struct {
	claims    []*v1.PersistentVolumeClaim
	pods      []*v1.Pod
	apiOnly   []*v1.Pod
	classes   []*storagev1.StorageClass
	allClaims bool
	// inTreePlugin is the in-tree plugin the driver replaces.
	inTreePlugin string
	// cacheRV is the resourceVersion the pod index starts at.
	cacheRV string
	// realFreshness uses the real check; otherwise it always says ready.
	realFreshness bool
	// smallNamespace lets the real check list the namespace live, as it
	// does for one of few pods; otherwise the namespace counts as large
	// and the check takes the probe and the watch.
	smallNamespace bool
	// run starts the informers (pods trimmed) and the controller instead
	// of filling the caches by hand.
	run bool
	// realLoop keeps the controller's own queue, for a test that steps it
	// with ProcessNext. Without it and without run, the queue only records
	// the keys the handlers add, for queued.
	realLoop bool
	// limiter replaces the loop's default rate limiter.
	limiter workqueue.TypedRateLimiter[cache.ObjectName]
}

// key is the queue key of claim name in testNS.
func key(name string) cache.ObjectName { return cache.ObjectName{Namespace: testNS, Name: name} }

type env struct {
	t        *testing.T
	client   *fake.Clientset
	factory  informers.SharedInformerFactory
	ctrl     *Controller
	recorder *record.FakeRecorder
	registry metrics.KubeRegistry
	fresh    *fakeFreshness
	clock    *testingclock.FakeClock
	// asked counts the calls of the freshness check, real or fake, that
	// have started.
	asked *askCounter

	mu sync.Mutex
	// added are the keys the handlers queued, when the queue only records.
	added []cache.ObjectName
	// syncs are the outcomes of the loop's syncs, by claim.
	syncs testutil.Syncs[cache.ObjectName]
}

func newEnv(t testing.TB, s setup) *env {
	t.Helper()
	var objs []runtime.Object
	for _, c := range s.claims {
		objs = append(objs, c)
	}
	for _, p := range append(append([]*v1.Pod{}, s.pods...), s.apiOnly...) {
		objs = append(objs, p)
	}
	for _, c := range s.classes {
		objs = append(objs, c)
	}
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	registry := metrics.NewKubeRegistry()
	m := NewMetrics()
	registry.MustRegister(m.Registerables()...)
	registry.CustomMustRegister(m.Collectors()...)
	recorder := record.NewFakeRecorder(1000)
	clk := testingclock.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	e := &env{client: client, factory: factory, recorder: recorder, registry: registry, clock: clk}
	ctrl, err := New(Options{
		Client:        client,
		ClaimInformer: factory.Core().V1().PersistentVolumeClaims(),
		PodInformer:   factory.Core().V1().Pods(),
		ClassLister:   factory.Storage().V1().StorageClasses().Lister(),
		DriverName:    testDriver,
		InTreePlugin:  s.inTreePlugin,
		AllClaims:     s.allClaims,
		EventRecorder: recorder,
		Metrics:       m,
		RateLimiter:   s.limiter,
		Processed:     e.syncs.Processed,
		Clock:         clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	ctrl.notReadyDelay = 10 * time.Millisecond
	if tt, ok := t.(*testing.T); ok {
		e.t = tt
	}
	if !s.realFreshness {
		e.fresh = &fakeFreshness{answer: freshness{ready: true}}
		ctrl.fresh = e.fresh
	} else if !s.smallNamespace {
		ctrl.fresh.(*checker).podsIn = nil
	}
	e.asked = &askCounter{podFreshness: ctrl.fresh}
	ctrl.fresh = e.asked
	if !s.run && !s.realLoop {
		ctrl.loop = e.recordingLoop(t)
	}
	t.Cleanup(ctrl.loop.ShutDown)
	if s.run {
		if err := factory.Core().V1().Pods().Informer().SetTransform(TrimPod); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		factory.Start(ctx.Done())
		factory.WaitForCacheSync(ctx.Done())
		go func() { ctrl.Run(ctx, 2); close(done) }()
		t.Cleanup(func() {
			cancel()
			<-done
			factory.Shutdown()
		})
		return e
	}
	for _, c := range s.claims {
		mustAdd(t, factory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer(), c)
	}
	for _, c := range s.classes {
		mustAdd(t, factory.Storage().V1().StorageClasses().Informer().GetIndexer(), c)
	}
	for _, p := range s.pods {
		mustAdd(t, ctrl.pods, p)
	}
	if s.cacheRV != "" {
		ctrl.pods.Bookmark(s.cacheRV)
	}
	return e
}

func mustAdd(t testing.TB, store interface{ Add(interface{}) error }, obj interface{}) {
	t.Helper()
	if err := store.Add(obj); err != nil {
		t.Fatal(err)
	}
}

// recordingLoop is a queue whose sync only records the key, so that a test
// can read back what the handlers queued without syncing it.
func (e *env) recordingLoop(t testing.TB) *reconcile.Loop[cache.ObjectName] {
	loop, err := reconcile.New(reconcile.Options[cache.ObjectName]{
		Name: "pvc-protection-keys",
		Sync: func(_ context.Context, key cache.ObjectName) (reconcile.Result, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.added = append(e.added, key)
			return reconcile.Done, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return loop
}

// waitSyncs waits until the loop has synced claim name more than after
// times, and returns the outcome of the sync after the first after.
func (e *env) waitSyncs(name string, after int) error {
	e.t.Helper()
	return e.syncs.Wait(e.t, 5*time.Second, key(name), after+1)[after]
}

// sync runs one sync of claim name, as a worker would, and returns its
// error; syncResult also returns what it asked of the loop.
func (e *env) sync(name string) error {
	_, err := e.syncResult(name)
	return err
}

func (e *env) syncResult(name string) (reconcile.Result, error) {
	return e.ctrl.sync(context.Background(), key(name))
}

// mustSync runs one sync of claim name, which must succeed, and returns
// what it asked of the loop.
func (e *env) mustSync(name string) reconcile.Result {
	e.t.Helper()
	result, err := e.syncResult(name)
	if err != nil {
		e.t.Fatalf("sync %s: %v", name, err)
	}
	return result
}

// setClaim puts a claim version in the claim cache.
func (e *env) setClaim(c *v1.PersistentVolumeClaim) {
	e.t.Helper()
	if err := e.factory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer().Update(c); err != nil {
		e.t.Fatal(err)
	}
}

// apiClaim reads a claim from the fake API server; nil when it is gone.
func (e *env) apiClaim(name string) *v1.PersistentVolumeClaim {
	c, err := e.client.CoreV1().PersistentVolumeClaims(testNS).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return c
}

func (e *env) hasFinalizer(name string) bool {
	c := e.apiClaim(name)
	if c == nil {
		e.t.Fatalf("claim %s is gone", name)
	}
	return slices.Contains(c.Finalizers, Finalizer)
}

// writes are the claims written so far (finalizers go by update: upstream's
// RBAC grants no patch on claims).
func (e *env) writes() []*v1.PersistentVolumeClaim {
	var out []*v1.PersistentVolumeClaim
	for _, a := range e.client.Actions() {
		if a.GetResource().Resource != "persistentvolumeclaims" {
			continue
		}
		switch w := a.(type) {
		case k8stesting.PatchAction:
			e.t.Errorf("claim %s patched; upstream's RBAC grants update only", w.GetName())
		case k8stesting.UpdateAction:
			out = append(out, w.GetObject().(*v1.PersistentVolumeClaim))
		}
	}
	return out
}

// events drains the recorded events.
func (e *env) events() []string { return testutil.Drain(e.recorder.Events) }

// metric returns the value of a pvc protection metric by its name suffix
// and, for a vector, its result label.
func (e *env) metric(name string, result ...string) float64 {
	e.t.Helper()
	var labels []string
	if len(result) > 0 {
		labels = []string{"result", result[0]}
	}
	v, ok := testutil.MetricValue(e.t, e.registry, "csi_provisioner_pvc_protection_"+name, labels...)
	if !ok {
		e.t.Fatalf("metric %s %v not found", name, labels)
	}
	return v
}

// notCounted tells whether the result of the counter vector name was never
// counted: a label value never counted is not exported, but the vector must
// be, so a renamed metric fails the test.
func (e *env) notCounted(name, result string) bool {
	e.t.Helper()
	full := "csi_provisioner_pvc_protection_" + name
	if _, ok := testutil.MetricValue(e.t, e.registry, full); !ok {
		e.t.Fatalf("metric %s not found", name)
	}
	v, ok := testutil.MetricValue(e.t, e.registry, full, "result", result)
	return !ok || v == 0
}

// queued takes the keys the handlers queued so far (those due now), as
// namespace/name strings.
func (e *env) queued() []string {
	for e.ctrl.loop.Len() > 0 {
		e.ctrl.loop.ProcessNext(context.Background())
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, k := range e.added {
		out = append(out, k.String())
	}
	e.added = nil
	return out
}

// eventually polls cond until it holds or fails the test after 5s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, what, cond)
}

// fakeFreshness answers every question alike and counts them.
type fakeFreshness struct {
	mu     sync.Mutex
	calls  int
	answer freshness
	err    error
}

func (f *fakeFreshness) Fresh(context.Context, string, moment) (freshness, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.answer, f.err
}

func claimNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = prefix + string(rune('a'+i/26)) + string(rune('a'+i%26))
	}
	return names
}

// askCounter counts the freshness checks asked for, before it asks.
type askCounter struct {
	podFreshness
	calls atomic.Int32
}

func (a *askCounter) Fresh(ctx context.Context, namespace string, seen moment) (freshness, error) {
	a.calls.Add(1)
	return a.podFreshness.Fresh(ctx, namespace, seen)
}

// hasState tells whether the controller still tracks claim key as being
// deleted (released claims leave only a release marker).
func (c *Controller) hasState(key cache.ObjectName) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[key]
	return st != nil && st.releasedFrom == ""
}
