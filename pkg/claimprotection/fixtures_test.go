package claimprotection

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const namespace = "apps"

// replayer stands for the provisioner: it answers ReplayAndDelete from a
// script and counts the calls.
type replayer struct {
	mu      sync.Mutex
	calls   []types.UID
	done    bool
	err     error
	onCall  func()
	nameErr error
}

func (r *replayer) PVName(claim *v1.PersistentVolumeClaim) (string, error) {
	return "pvc-" + string(claim.UID), r.nameErr
}

func (r *replayer) ReplayAndDelete(_ context.Context, claim *v1.PersistentVolumeClaim) (bool, error) {
	r.mu.Lock()
	r.calls = append(r.calls, claim.UID)
	done, err, onCall := r.done, r.err, r.onCall
	r.mu.Unlock()
	if onCall != nil {
		onCall()
	}
	return done, err
}

func (r *replayer) replays() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// setup is what a test starts from.
type setup struct {
	claims   []*v1.PersistentVolumeClaim
	volumes  []*v1.PersistentVolume
	replayer *replayer
	gateOff  bool
	// nodeName runs the controller as a sidecar of that node
	// (--node-deployment).
	nodeName string
	// uidIndex, if set, is an index of claims by UID registered before the
	// controller, as the provisioning library's is, for it to use.
	uidIndex string
	// serves is Options.Serves.
	serves func(*v1.PersistentVolumeClaim) bool
}

// env is a claim protection controller over informers of a fake API
// server, with a real call tracker and a scripted replayer.
type env struct {
	client   *fake.Clientset
	ctrl     *Controller
	calls    *provisionstate.Tracker
	replayer *replayer
	recorder *record.FakeRecorder
	registry metrics.KubeRegistry
	claims   cache.Indexer
	ctx      context.Context
}

// newEnv builds the controller and starts its informers; workers run only
// after run.
func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	var objs []runtime.Object
	for _, c := range s.claims {
		objs = append(objs, c)
	}
	for _, pv := range s.volumes {
		objs = append(objs, pv)
	}
	client := testutil.NewClientset(objs...)
	if s.replayer == nil {
		s.replayer = &replayer{done: true}
	}
	registry := metrics.NewKubeRegistry()
	m := NewMetrics()
	registry.MustRegister(m.Registerables()...)
	registry.CustomMustRegister(m.Collectors()...)
	factory := informers.NewSharedInformerFactory(client, 0)
	recorder := record.NewFakeRecorder(100)
	calls := provisionstate.NewTracker()
	if s.uidIndex != "" {
		if err := factory.Core().V1().PersistentVolumeClaims().Informer().AddIndexers(cache.Indexers{s.uidIndex: claimUIDKeys}); err != nil {
			t.Fatal(err)
		}
	}
	ctrl, err := New(Options{
		Client:                 client,
		ClaimInformer:          factory.Core().V1().PersistentVolumeClaims(),
		VolumeInformer:         factory.Core().V1().PersistentVolumes(),
		Calls:                  calls,
		Replayer:               s.replayer,
		ProvisioningProtection: !s.gateOff,
		NodeName:               s.nodeName,
		EventRecorder:          recorder,
		ClaimUIDIndex:          s.uidIndex,
		Serves:                 s.serves,
		Metrics:                m,
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
	return &env{
		client: client, ctrl: ctrl, calls: calls, replayer: s.replayer, recorder: recorder, registry: registry,
		claims: factory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer(), ctx: ctx,
	}
}

// run starts the workers until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	testutil.RunUntilCleanup(t, e.ctx, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// sync runs one sync of a claim once the cache shows it as the API server
// has it, as a worker would.
func (e *env) sync(t *testing.T, name string) error {
	t.Helper()
	live := e.claim(t, name)
	testutil.Eventually(t, 5*time.Second, "the cache to catch up with "+name, func() bool {
		obj, ok, _ := e.claims.GetByKey(namespace + "/" + name)
		return ok && obj.(*v1.PersistentVolumeClaim).ResourceVersion == live.ResourceVersion
	})
	_, err := e.ctrl.sync(e.ctx, cache.ObjectName{Namespace: namespace, Name: name})
	return err
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

// update changes a claim on the API server.
func (e *env) update(t *testing.T, name string, change func(*v1.PersistentVolumeClaim)) {
	t.Helper()
	c := e.claim(t, name)
	change(c)
	if _, err := e.client.CoreV1().PersistentVolumeClaims(namespace).Update(context.Background(), c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// deleteClaim deletes a claim; its finalizers keep it, being deleted.
func (e *env) deleteClaim(t *testing.T, name string) {
	t.Helper()
	if err := e.client.CoreV1().PersistentVolumeClaims(namespace).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) events() []string { return testutil.Drain(e.recorder.Events) }

// metric returns a provisioning protection metric by its name suffix.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.registry, "csi_provisioner_provisioning_protection_"+name)
}

func has(c *v1.PersistentVolumeClaim, f string) bool { return c != nil && finalizer.Has(c, f) }

func newClaim(name string, uid types.UID, finalizers ...string) *v1.PersistentVolumeClaim {
	class := "fast"
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: uid, Finalizers: finalizers},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &class,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

// pvOf is the PV the provisioner saves for a claim.
func pvOf(claim *v1.PersistentVolumeClaim) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + string(claim.UID)},
		Spec:       v1.PersistentVolumeSpec{ClaimRef: &v1.ObjectReference{Namespace: namespace, Name: claim.Name, UID: claim.UID}},
	}
}

var metaCreate = metav1.CreateOptions{}

func keyOf(name string) cache.ObjectName { return cache.ObjectName{Namespace: namespace, Name: name} }
