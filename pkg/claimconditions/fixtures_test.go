package claimconditions

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
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
	*testutil.Env
	ctrl   *Controller
	calls  *provisionstate.Tracker
	errs   *provisionstate.DriverErrors
	holds  *holds
	clock  *clocktesting.FakeClock
	claims cache.Store
	syncs  testutil.Syncs[cache.ObjectName]
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	if s.classes == nil {
		s.classes = []*storagev1.StorageClass{newClass("fast", storagev1.VolumeBindingImmediate), newClass("local", storagev1.VolumeBindingWaitForFirstConsumer)}
	}
	var informerOpts []informers.SharedInformerOption
	if s.trim {
		informerOpts = append(informerOpts, informers.WithTransform(trimClaimStatus))
	}
	m := NewMetrics()
	e := &env{
		Env: testutil.NewEnv(t, testutil.EnvOptions{
			Objects:            append(testutil.Objects(s.claims...), testutil.Objects(s.classes...)...),
			StatusSubresources: []string{"persistentvolumeclaims"},
			InformerOptions:    informerOpts,
			Metrics:            []testutil.MetricSet{m},
			Timeout:            10 * time.Second,
		}),
		calls: provisionstate.NewTracker(),
		errs:  provisionstate.NewDriverErrors(0),
		holds: &holds{until: map[string]time.Time{}},
		clock: clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
	}
	claims := e.Informers.Core().V1().PersistentVolumeClaims()
	ctrl, err := New(Options{
		Client:        e.Client,
		ClaimInformer: claims,
		ClassInformer: e.Informers.Storage().V1().StorageClasses(),
		DriverName:    driver,
		NodeName:      s.nodeName,
		Calls:         e.calls,
		DriverErrors:  e.errs,
		Holds:         e.holds,
		Settle:        s.settle,
		Clock:         e.clockFor(s),
		Metrics:       m,
		RateLimiter:   testutil.InstantRetries[cache.ObjectName](),
		Processed:     e.syncs.Processed,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl, e.claims = ctrl, claims.Informer().GetStore()
	e.StartInformers(t)
	return e
}

func (e *env) clockFor(s setup) clock.PassiveClock {
	if s.realClock {
		return clock.RealClock{}
	}
	return e.clock
}

// run starts the workers until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	e.Run(t, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// sync runs one sync of a claim once the cache shows it as the API server
// has it, as a worker would.
func (e *env) sync(t *testing.T, name string) (reconcile.Result, error) {
	t.Helper()
	testutil.WaitCurrent(t, e.Timeout, e.claims, e.api(), namespace, name)
	return e.ctrl.sync(e.Ctx, keyOf(name))
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

// api is the claims of the namespace on the API server.
func (e *env) api() corev1client.PersistentVolumeClaimInterface {
	return e.Client.CoreV1().PersistentVolumeClaims(namespace)
}

// claim reads a claim from the API server.
func (e *env) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	return testutil.Get(t, e.api(), name)
}

// bind binds a claim as the binder does: its volume name, then its phase.
func (e *env) bind(t *testing.T, name string) {
	t.Helper()
	testutil.Update(t, e.api(), name, func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeName = "pvc-" + string(c.UID) })
	testutil.UpdateStatus(t, e.api(), name, func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimBound })
}

// condition is the claim's condition on the API server, nil for none.
func (e *env) condition(t *testing.T, name string) *v1.PersistentVolumeClaimCondition {
	t.Helper()
	return conditionOf(e.claim(t, name))
}

// reason is the reason of the claim's condition, "" for none.
func (e *env) reason(t *testing.T, name string) string {
	t.Helper()
	if c := e.condition(t, name); c != nil {
		return c.Reason
	}
	return ""
}

// statusPatch keeps the patches of a claim's status, this controller's
// only write.
var statusPatch = []testutil.ActionFilter{testutil.Verb("patch"), testutil.On("persistentvolumeclaims"), testutil.OnSubresource("status")}

// statusPatches counts the patches of claim status sent so far.
func (e *env) statusPatches() int { return len(testutil.Actions(e.Client.Actions(), statusPatch...)) }

// writes reads the writes metric.
func (e *env) writes(t *testing.T, reason, result string) float64 {
	t.Helper()
	return e.Registry.Value(t, "csi_provisioner_claim_conditions_writes_total", "reason", reason, "result", result)
}

// changeBeforeNextStatusPatch changes a claim on the API server right
// before the next status patch reaches it, as another writer whose write
// lands between a sync's read of the cache and its own write.
func (e *env) changeBeforeNextStatusPatch(t *testing.T, name string, change func(*v1.PersistentVolumeClaim)) {
	t.Helper()
	gvr := v1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	testutil.BeforeNext(e.Client, func(k8stesting.Action) {
		// Through the tracker: the fake's own client would wait for the
		// reactor this runs in.
		obj, err := e.Client.Tracker().Get(gvr, namespace, name)
		if err != nil {
			t.Error(err)
			return
		}
		c := obj.(*v1.PersistentVolumeClaim).DeepCopy()
		change(c)
		c.ResourceVersion = "99" + c.ResourceVersion
		if err := e.Client.Tracker().Update(gvr, c, namespace); err != nil {
			t.Error(err)
		}
	}, statusPatch...)
}

// newClass is a class of the driver.
func newClass(name string, mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
	return testutil.NewClass(name, driver, testutil.WithBindingMode(mode))
}

// newClaim is a pending claim of class, which the PV controller handed to
// the driver when the class binds at once.
func newClaim(name, class string, opts ...testutil.ClaimOption) *v1.PersistentVolumeClaim {
	if class == "fast" {
		opts = append([]testutil.ClaimOption{testutil.WithAnnotation(driverscope.AnnStorageProvisioner, driver)}, opts...)
	}
	return testutil.NewClaim(namespace, name, append([]testutil.ClaimOption{testutil.WithClass(class), testutil.WithClaimPhase(v1.ClaimPending)}, opts...)...)
}

// withCondition gives a claim a condition of ConditionType.
func withCondition(reason, message string) testutil.ClaimFunc {
	return func(c *v1.PersistentVolumeClaim) {
		c.Status.Conditions = append(c.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: ConditionType, Status: v1.ConditionTrue, Reason: reason, Message: message,
			LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		})
	}
}

// withFinalizer gives a claim claim protection's finalizer.
var withFinalizer = testutil.WithFinalizers(provisionstate.ProvisioningProtectionFinalizer)

// trimClaimStatus is the sidecar's trim of claims in its cache.
func trimClaimStatus(obj any) (any, error) {
	if claim, ok := obj.(*v1.PersistentVolumeClaim); ok {
		claim.Status = v1.PersistentVolumeClaimStatus{Phase: claim.Status.Phase, Conditions: Owned(claim.Status.Conditions)}
	}
	return obj, nil
}

func keyOf(name string) cache.ObjectName { return cache.ObjectName{Namespace: namespace, Name: name} }
