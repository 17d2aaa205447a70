package claimconditions

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const (
	namespace = "apps"
	driver    = "csi.example.com"
	settle    = 2 * time.Second
)

// holds stands for the provisioner's infeasible holds.
type holds struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (h *holds) InfeasibleHold(claim *v1.PersistentVolumeClaim) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	until, ok := h.until[string(claim.UID)]
	return until, ok
}

func (h *holds) set(uid string, until time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.until[uid] = until
}

func (h *holds) end(uid string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.until, uid)
}

// setup is what a test starts from.
type setup struct {
	claims  []*v1.PersistentVolumeClaim
	classes []*storagev1.StorageClass
	// settle is Options.Settle; tests of the writes themselves use 0.
	settle   time.Duration
	nodeName string
	// trim keeps in the claim cache only what the sidecar's does: the
	// phase and this condition of a claim's status.
	trim bool
	// realClock runs the controller on the real clock, for a running
	// controller whose settle waits the workqueue times in real time.
	realClock bool
}

// env is a claim conditions controller over informers of a fake API server
// with a status subresource for claims, with a real call tracker and
// driver errors, scripted holds and a fake clock.
type env struct {
	client   *fake.Clientset
	ctrl     *Controller
	calls    *provisionstate.Tracker
	errs     *provisionstate.DriverErrors
	holds    *holds
	clock    *clocktesting.FakeClock
	registry metrics.KubeRegistry
	claims   cache.Indexer
	syncs    *testutil.Syncs[cache.ObjectName]
	ctx      context.Context
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	var objs []runtime.Object
	for _, c := range s.claims {
		objs = append(objs, c)
	}
	if s.classes == nil {
		s.classes = []*storagev1.StorageClass{newClass("fast", storagev1.VolumeBindingImmediate), newClass("local", storagev1.VolumeBindingWaitForFirstConsumer)}
	}
	for _, c := range s.classes {
		objs = append(objs, c)
	}
	client := testutil.NewClientsetWithOptions(testutil.APIServerOptions{StatusSubresources: []string{"persistentvolumeclaims"}}, objs...)
	registry := metrics.NewKubeRegistry()
	m := NewMetrics()
	registry.MustRegister(m.Registerables()...)
	var factoryOpts []informers.SharedInformerOption
	if s.trim {
		factoryOpts = append(factoryOpts, informers.WithTransform(trimClaimStatus))
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, factoryOpts...)
	e := &env{
		client: client,
		calls:  provisionstate.NewTracker(),
		errs:   provisionstate.NewDriverErrors(0),
		holds:  &holds{until: map[string]time.Time{}},
		clock:  clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		syncs:  &testutil.Syncs[cache.ObjectName]{},
	}
	ctrl, err := New(Options{
		Client:        client,
		ClaimInformer: factory.Core().V1().PersistentVolumeClaims(),
		ClassInformer: factory.Storage().V1().StorageClasses(),
		DriverName:    driver,
		NodeName:      s.nodeName,
		Calls:         e.calls,
		DriverErrors:  e.errs,
		Holds:         e.holds,
		Settle:        s.settle,
		Clock:         clockOf(e, s),
		Metrics:       m,
		RateLimiter:   testutil.InstantRetries[cache.ObjectName](),
		Processed:     e.syncs.Processed,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	e.ctrl, e.registry, e.ctx = ctrl, registry, ctx
	e.claims = factory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer()
	return e
}

// run starts the workers until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	testutil.RunUntilCleanup(t, e.ctx, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// sync runs one sync of a claim once the cache shows it as the API server
// has it, as a worker would.
func (e *env) sync(t *testing.T, name string) (reconcile.Result, error) {
	t.Helper()
	e.waitForCache(t, name)
	return e.ctrl.sync(e.ctx, cache.ObjectName{Namespace: namespace, Name: name})
}

// mustSync is sync that must succeed.
func (e *env) mustSync(t *testing.T, name string) reconcile.Result {
	t.Helper()
	res, err := e.sync(t, name)
	if err != nil {
		t.Fatalf("sync %s: %v", name, err)
	}
	return res
}

func (e *env) waitForCache(t *testing.T, name string) {
	t.Helper()
	live := e.claim(t, name)
	testutil.Eventually(t, 5*time.Second, "the cache to catch up with "+name, func() bool {
		obj, ok, _ := e.claims.GetByKey(namespace + "/" + name)
		if live == nil {
			return !ok
		}
		return ok && obj.(*v1.PersistentVolumeClaim).ResourceVersion == live.ResourceVersion
	})
}

// claim reads a claim from the API server; nil when it is gone.
func (e *env) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	c, err := e.client.CoreV1().PersistentVolumeClaims(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return c
}

// update changes a claim (not its status) on the API server.
func (e *env) update(t *testing.T, name string, change func(*v1.PersistentVolumeClaim)) {
	t.Helper()
	c := e.claim(t, name)
	change(c)
	if _, err := e.client.CoreV1().PersistentVolumeClaims(namespace).Update(context.Background(), c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// updateStatus changes a claim's status on the API server, as the binder.
func (e *env) updateStatus(t *testing.T, name string, change func(*v1.PersistentVolumeClaim)) {
	t.Helper()
	c := e.claim(t, name)
	change(c)
	if _, err := e.client.CoreV1().PersistentVolumeClaims(namespace).UpdateStatus(context.Background(), c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// bind binds a claim as the binder does: its volume name, then its phase.
func (e *env) bind(t *testing.T, name string) {
	t.Helper()
	e.update(t, name, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeName = "pvc-" + string(c.UID) })
	e.updateStatus(t, name, func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimBound })
}

func (e *env) deleteClaim(t *testing.T, name string) {
	t.Helper()
	if err := e.client.CoreV1().PersistentVolumeClaims(namespace).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// condition is the claim's condition on the API server, nil for none.
func (e *env) condition(t *testing.T, name string) *v1.PersistentVolumeClaimCondition {
	t.Helper()
	c := e.claim(t, name)
	if c == nil {
		t.Fatalf("claim %s is gone", name)
	}
	return conditionOf(c)
}

// reason is the reason of the claim's condition, "" for none.
func (e *env) reason(t *testing.T, name string) string {
	t.Helper()
	if c := e.condition(t, name); c != nil {
		return c.Reason
	}
	return ""
}

// statusPatches counts the patches of claim status sent so far.
func (e *env) statusPatches() int {
	n := 0
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "patch" && a.GetResource().Resource == "persistentvolumeclaims" && a.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

// writes reads the writes metric.
func (e *env) writes(t *testing.T, reason, result string) float64 {
	t.Helper()
	v, _ := testutil.MetricValue(t, e.registry, "csi_provisioner_claim_conditions_writes_total", "reason", reason, "result", result)
	return v
}

// failNextStatusPatch makes the next status patch fail with err.
func (e *env) failNextStatusPatch(err error) {
	var once sync.Once
	e.client.PrependReactor("patch", "persistentvolumeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		handled := false
		once.Do(func() { handled = true })
		if handled {
			return true, nil, err
		}
		return false, nil, nil
	})
}

func newClass(name string, mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       driver,
		VolumeBindingMode: &mode,
	}
}

// newClaim is a pending claim of class, which the PV controller handed to
// the driver when the class binds at once.
func newClaim(name, class string) *v1.PersistentVolumeClaim {
	c := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID("uid-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &class,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
	if class == "fast" {
		c.Annotations = map[string]string{driverscope.AnnStorageProvisioner: driver}
	}
	return c
}

// withCondition gives a claim a condition of ConditionType.
func withCondition(c *v1.PersistentVolumeClaim, reason, message string) *v1.PersistentVolumeClaim {
	c.Status.Conditions = append(c.Status.Conditions, v1.PersistentVolumeClaimCondition{
		Type: ConditionType, Status: v1.ConditionTrue, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	})
	return c
}

// trimClaimStatus is the sidecar's trim of claims in its cache.
func trimClaimStatus(obj any) (any, error) {
	if claim, ok := obj.(*v1.PersistentVolumeClaim); ok {
		claim.Status = v1.PersistentVolumeClaimStatus{Phase: claim.Status.Phase, Conditions: Owned(claim.Status.Conditions)}
	}
	return obj, nil
}

func keyOf(name string) cache.ObjectName { return cache.ObjectName{Namespace: namespace, Name: name} }

// changeBeforeNextStatusPatch changes a claim on the API server right
// before the next status patch reaches it, as another writer whose write
// lands between a sync's read of the cache and its own write.
func (e *env) changeBeforeNextStatusPatch(t *testing.T, name string, change func(*v1.PersistentVolumeClaim)) {
	t.Helper()
	var once sync.Once
	gvr := v1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	e.client.PrependReactor("patch", "persistentvolumeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		once.Do(func() {
			// Through the tracker: the fake's own client would wait
			// for this reactor.
			obj, err := e.client.Tracker().Get(gvr, namespace, name)
			if err != nil {
				t.Error(err)
				return
			}
			c := obj.(*v1.PersistentVolumeClaim).DeepCopy()
			change(c)
			c.ResourceVersion = "99" + c.ResourceVersion
			if err := e.client.Tracker().Update(gvr, c, namespace); err != nil {
				t.Error(err)
			}
		})
		return false, nil, nil
	})
}

func clockOf(e *env, s setup) clock.PassiveClock {
	if s.realClock {
		return clock.RealClock{}
	}
	return e.clock
}
