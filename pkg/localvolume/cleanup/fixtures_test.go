package cleanup

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	localfake "github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned/fake"
	"github.com/csi-protect/external-provisioner/pkg/generated/informers/externalversions"
)

const (
	testNS    = "local-storage"
	ownerName = "disks"
	testNode  = "node-1"
	testGrace = 5 * time.Minute
)

var (
	kinds   = []string{KindLocalVolume, KindLocalVolumeSet}
	pvGVR   = corev1.SchemeGroupVersion.WithResource("persistentvolumes")
	nodeGVR = corev1.SchemeGroupVersion.WithResource("nodes")
)

// forEachKind runs test once for each owner kind: both get the same rules.
func forEachKind(t *testing.T, test func(t *testing.T, kind string)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { test(t, kind) })
	}
}

func keyOf(kind string) OwnerKey { return OwnerKey{Kind: kind, Namespace: testNS, Name: ownerName} }

// newLocalClient is a fake LocalVolume clientset with the API server's
// semantics, the status subresource included.
func newLocalClient() *localfake.Clientset {
	client := localfake.NewSimpleClientset()
	testutil.ServerSemantics(&client.Fake, client.Tracker(), testutil.APIServerOptions{
		StatusSubresources: []string{LocalVolumeResource.Resource, LocalVolumeSetResource.Resource},
	})
	return client
}

// --- the environment ---

// setup is what a test starts from.
type setup struct {
	owners  []ownerObject
	volumes []*corev1.PersistentVolume
	nodes   []*corev1.Node
	// disabled turns the LocalVolumeCleanup gate off.
	disabled bool
	// ownInformers leaves Options.LocalInformers nil, so that the
	// controller makes its own, which only Run starts: for tests that run
	// it.
	ownInformers bool
	// realClock uses the real clock instead of a fake one.
	realClock bool
	grace     time.Duration
	// limiter replaces the default rate limiter, to make retries fast.
	limiter workqueue.TypedRateLimiter[OwnerKey]
}

// env is a controller over started informers of fake clients. Tests either
// call sync or step the loop themselves, or start the workers with run.
// Env.Client is the Kubernetes API server.
type env struct {
	*testutil.Env
	local *localfake.Clientset
	ctrl  *Controller
	// events is the recorder the controller is given, rather than
	// Env.Events: it says which object each event is on.
	events  *eventLog
	clock   *testingclock.FakeClock
	watches testutil.Watches

	// syncs are the outcomes of the loop's syncs, by owner.
	syncs testutil.Syncs[OwnerKey]
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	m := NewMetrics()
	e := &env{
		Env: testutil.NewEnv(t, testutil.EnvOptions{
			Objects: append(testutil.Objects(s.volumes...), testutil.Objects(s.nodes...)...),
			Metrics: []testutil.MetricSet{m},
		}),
		local:  newLocalClient(),
		events: &eventLog{},
		clock:  testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	for _, o := range s.owners {
		e.createOwner(t, countedOwner(o, s.volumes))
	}
	e.watches.Record(e.Client, e.Client.Tracker())
	e.watches.Record(e.local, e.local.Tracker())

	opts := Options{
		Client:         e.Client,
		LocalClient:    e.local,
		VolumeInformer: e.Informers.Core().V1().PersistentVolumes(),
		NodeInformer:   e.Informers.Core().V1().Nodes(),
		Enabled:        !s.disabled,
		EventRecorder:  e.events,
		Metrics:        m,
		RateLimiter:    s.limiter,
		Processed:      e.syncs.Processed,
		Clock:          e.clock,
		NodeGoneGrace:  s.grace,
	}
	if s.realClock {
		opts.Clock = nil
	}
	var crs []testutil.InformerFactory
	if !s.ownInformers {
		f := externalversions.NewSharedInformerFactory(e.local, 0)
		opts.LocalInformers = f
		crs = append(crs, f)
	}
	ctrl, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	t.Cleanup(ctrl.loop.ShutDown)
	e.StartInformers(t, crs...)
	if crs != nil {
		e.waitWatching(t)
	}
	return e
}

// countedOwner is o as the controller leaves a LocalVolumeSet at rest:
// with a totalProvisionedDeviceCount of its volumes, unless o has one
// (withDeviceCount), so that only tests about the count see it written.
func countedOwner(o ownerObject, volumes []*corev1.PersistentVolume) ownerObject {
	set, ok := o.(*localv1alpha1.LocalVolumeSet)
	if !ok || set.Status.TotalProvisionedDeviceCount != nil {
		return o
	}
	key := OwnerKey{Kind: KindLocalVolumeSet, Namespace: set.Namespace, Name: set.Name}
	n := 0
	for _, pv := range volumes {
		if k, ok := volumeOwner(pv); ok && k == key {
			n++
		}
	}
	if n == 0 {
		return o
	}
	set = set.DeepCopy()
	withDeviceCount(n)(set)
	return set
}

// run starts the workers; the test's cleanup stops them and waits.
func (e *env) run(t *testing.T) {
	t.Helper()
	e.Run(t, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
	e.waitWatching(t)
}

// waitWatching waits until every informer of the controller watches, as
// the fakes drop what happens before.
func (e *env) waitWatching(t *testing.T) {
	t.Helper()
	var resources []string
	if e.ctrl.volumeIndex != nil {
		resources = append(resources, pvGVR.Resource)
	}
	if e.ctrl.nodeIndex != nil {
		resources = append(resources, nodeGVR.Resource)
	}
	for _, k := range e.ctrl.kinds {
		resources = append(resources, k.gvr.Resource)
	}
	e.Eventually(t, "every informer to watch", func() bool { return e.watches.Watching(resources...) })
}

// settle waits until the informer caches show what the fake API servers
// hold, object for object and version for version: every write bumps the
// resourceVersion, so a cache that matches is current.
func (e *env) settle(t *testing.T) {
	t.Helper()
	e.Eventually(t, "the caches to catch up", func() bool {
		// With the gate off, there are no PV and Node caches.
		if e.ctrl.volumeIndex != nil && !maps.Equal(testutil.TrackerVersions(t, e.Client.Tracker(), pvGVR, "PersistentVolume"), testutil.StoreVersions(e.ctrl.volumeIndex)) {
			return false
		}
		if e.ctrl.nodeIndex != nil && !maps.Equal(testutil.TrackerVersions(t, e.Client.Tracker(), nodeGVR, "Node"), testutil.StoreVersions(e.ctrl.nodeIndex)) {
			return false
		}
		for _, k := range e.ctrl.kinds {
			if !maps.Equal(testutil.TrackerVersions(t, e.local.Tracker(), k.gvr, k.name), testutil.StoreVersions(k.informer.GetStore())) {
				return false
			}
		}
		return true
	})
}

// sync runs one sync of key, as a worker would, on settled caches.
func (e *env) sync(t *testing.T, key OwnerKey) (time.Duration, error) {
	t.Helper()
	e.settle(t)
	result, err := e.ctrl.sync(e.Ctx, key)
	return result.RequeueAfter, err
}

// mustSync syncs key and fails the test on an error.
func (e *env) mustSync(t *testing.T, key OwnerKey) time.Duration {
	t.Helper()
	after, err := e.sync(t, key)
	if err != nil {
		t.Fatalf("sync %s: %v", key, err)
	}
	return after
}

// metric returns the value of a local_volume_cleanup metric by its short
// name, and fails the test if there is no such metric.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.Registry, "csi_provisioner_local_volume_cleanup_"+name)
}

func hasOwnerFinalizer(o *owner) bool {
	return o != nil && finalizer.Has(o.meta, local.LocalVolumeProtectionFinalizer)
}

// mentions fails the test unless text contains every part.
func mentions(t *testing.T, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%q does not mention %q", text, p)
		}
	}
}
