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
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

const (
	testNS     = "ns"
	testDriver = "csi.example.com"
	testNode   = "node-1"
)

// newClaim is a claim of testDriver, at version 1, that carries the
// finalizer.
func newClaim(name string, opts ...testutil.ClaimOption) *v1.PersistentVolumeClaim {
	return testutil.NewClaim(testNS, name, append([]testutil.ClaimOption{testutil.WithResourceVersion("1"),
		testutil.WithAnnotation(driverscope.AnnStorageProvisioner, testDriver), testutil.WithFinalizers(Finalizer)}, opts...)...)
}

// newPod is a pod at version 1 on node (unscheduled if "") using the named
// claims.
func newPod(name, node string, claims ...string) *v1.Pod {
	return testutil.NewPod(testNS, name, testutil.WithResourceVersion("1"), testutil.OnNode(node), testutil.UsingClaims(claims...))
}

// ephemeralPod is a pod with a generic ephemeral volume, and that volume's
// claim, owned by the pod if owned.
func ephemeralPod(name, volume string, owned bool, claimOpts ...testutil.ClaimOption) (*v1.Pod, *v1.PersistentVolumeClaim) {
	pod := newPod(name, testNode)
	pod.Spec.Volumes = []v1.Volume{{Name: volume, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}}
	if owned {
		claimOpts = append(claimOpts, testutil.WithOwner(metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: name, UID: pod.UID, Controller: ptr.To(true)}))
	}
	return pod, newClaim(name+"-"+volume, claimOpts...)
}

func withRV(pod *v1.Pod, rv string) *v1.Pod {
	pod.ResourceVersion = rv
	return pod
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
	*testutil.Env
	t     *testing.T
	ctrl  *Controller
	fresh *fakeFreshness
	clock *testingclock.FakeClock
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
	m := NewMetrics()
	pods := slices.Concat(s.pods, s.apiOnly)
	e := &env{
		// The plain fake: the claims in the caches are at the versions
		// the builders gave, and the freshness tests script its pod lists
		// and watches (see apiServer).
		Env: testutil.NewEnv(t, testutil.EnvOptions{
			Client:  fake.NewClientset(slices.Concat(testutil.Objects(s.claims...), testutil.Objects(pods...), testutil.Objects(s.classes...))...),
			Metrics: []testutil.MetricSet{m},
		}),
		clock: testingclock.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	claims, classes := e.Informers.Core().V1().PersistentVolumeClaims(), e.Informers.Storage().V1().StorageClasses()
	ctrl, err := New(Options{
		Client:        e.Client,
		ClaimInformer: claims,
		PodInformer:   e.Informers.Core().V1().Pods(),
		ClassLister:   classes.Lister(),
		DriverName:    testDriver,
		InTreePlugin:  s.inTreePlugin,
		AllClaims:     s.allClaims,
		EventRecorder: e.Events,
		Metrics:       m,
		RateLimiter:   s.limiter,
		Processed:     e.syncs.Processed,
		Clock:         e.clock,
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
		if err := e.Informers.Core().V1().Pods().Informer().SetTransform(TrimPod); err != nil {
			t.Fatal(err)
		}
		e.StartInformers(t)
		e.Run(t, func(ctx context.Context) { ctrl.Run(ctx, 2) })
		return e
	}
	testutil.AddTo(t, claims.Informer().GetIndexer(), s.claims...)
	testutil.AddTo(t, classes.Informer().GetIndexer(), s.classes...)
	testutil.AddTo(t, ctrl.pods, s.pods...)
	if s.cacheRV != "" {
		ctrl.pods.Bookmark(s.cacheRV)
	}
	return e
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
	if err := e.Informers.Core().V1().PersistentVolumeClaims().Informer().GetIndexer().Update(c); err != nil {
		e.t.Fatal(err)
	}
}

// hasFinalizer tells whether claim name, which must exist, has the
// finalizer on the API server.
func (e *env) hasFinalizer(name string) bool {
	e.t.Helper()
	return slices.Contains(testutil.Get(e.t, e.Client.CoreV1().PersistentVolumeClaims(testNS), name).Finalizers, Finalizer)
}

// claimUpdate keeps the updates of claims, the controller's only write.
var claimUpdate = []testutil.ActionFilter{testutil.Verb("update"), testutil.On("persistentvolumeclaims")}

// writes are the claims written so far (finalizers go by update: upstream's
// RBAC grants no patch on claims).
func (e *env) writes() []*v1.PersistentVolumeClaim {
	var out []*v1.PersistentVolumeClaim
	for _, a := range testutil.Actions(e.Client.Actions(), testutil.On("persistentvolumeclaims")) {
		switch w := a.(type) {
		case k8stesting.PatchAction:
			e.t.Errorf("claim %s patched; upstream's RBAC grants update only", w.GetName())
		case k8stesting.UpdateAction:
			out = append(out, w.GetObject().(*v1.PersistentVolumeClaim))
		}
	}
	return out
}

// metric returns the value of a pvc protection metric by its name suffix
// and, for a vector, its result label: 0 for a result never counted.
func (e *env) metric(name string, result ...string) float64 {
	e.t.Helper()
	var labels []string
	if len(result) > 0 {
		labels = []string{"result", result[0]}
	}
	return e.Registry.Value(e.t, "csi_provisioner_pvc_protection_"+name, labels...)
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
