package claimprotection

import (
	"context"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"

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
	*testutil.Env
	ctrl     *Controller
	calls    *provisionstate.Tracker
	replayer *replayer
	claims   cache.Indexer
}

// newEnv builds the controller and starts its informers; workers run only
// after run.
func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	if s.replayer == nil {
		s.replayer = &replayer{done: true}
	}
	m := NewMetrics()
	e := &env{
		Env: testutil.NewEnv(t, testutil.EnvOptions{
			Objects: append(testutil.Objects(s.claims...), testutil.Objects(s.volumes...)...),
			Metrics: []testutil.MetricSet{m},
		}),
		calls:    provisionstate.NewTracker(),
		replayer: s.replayer,
	}
	claims := e.Informers.Core().V1().PersistentVolumeClaims()
	if s.uidIndex != "" {
		if err := claims.Informer().AddIndexers(cache.Indexers{s.uidIndex: claimUIDKeys}); err != nil {
			t.Fatal(err)
		}
	}
	ctrl, err := New(Options{
		Client:                 e.Client,
		ClaimInformer:          claims,
		VolumeInformer:         e.Informers.Core().V1().PersistentVolumes(),
		Calls:                  e.calls,
		Replayer:               s.replayer,
		ProvisioningProtection: !s.gateOff,
		NodeName:               s.nodeName,
		EventRecorder:          e.Events,
		ClaimUIDIndex:          s.uidIndex,
		Serves:                 s.serves,
		Metrics:                m,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl, e.claims = ctrl, claims.Informer().GetIndexer()
	e.StartInformers(t)
	return e
}

// run starts the workers until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	e.Run(t, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// sync runs one sync of a claim once the cache shows it as the API server
// has it, as a worker would.
func (e *env) sync(t *testing.T, name string) error {
	t.Helper()
	testutil.WaitCurrent(t, e.Timeout, e.claims, e.api(), namespace, name)
	_, err := e.ctrl.sync(e.Ctx, keyOf(name))
	return err
}

// api is the claims of the namespace on the API server.
func (e *env) api() corev1client.PersistentVolumeClaimInterface {
	return e.Client.CoreV1().PersistentVolumeClaims(namespace)
}

// claim reads a claim from the API server; nil when it is gone.
func (e *env) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	c, _ := testutil.Find(t, e.api(), name)
	return c
}

// metric returns a provisioning protection metric by its name suffix.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.Registry, "csi_provisioner_provisioning_protection_"+name)
}

func has(c *v1.PersistentVolumeClaim, f string) bool { return c != nil && finalizer.Has(c, f) }

// newClaim is a claim of class fast with finalizers.
func newClaim(name string, finalizers ...string) *v1.PersistentVolumeClaim {
	return testutil.NewClaim(namespace, name, testutil.WithClass("fast"), testutil.WithFinalizers(finalizers...))
}

// pvOf is the PV the provisioner saves for a claim.
func pvOf(claim *v1.PersistentVolumeClaim) *v1.PersistentVolume {
	return testutil.NewPV("pvc-"+string(claim.UID), testutil.BoundTo(claim.Namespace, claim.Name, claim.UID))
}

func keyOf(name string) cache.ObjectName { return cache.ObjectName{Namespace: namespace, Name: name} }
