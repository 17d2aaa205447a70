package cleanup

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
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
type env struct {
	kube     *fake.Clientset
	local    *localfake.Clientset
	ctrl     *Controller
	events   *eventLog
	clock    *testingclock.FakeClock
	registry metrics.KubeRegistry
	ctx      context.Context
	logs     ktesting.Buffer
	factory  informers.SharedInformerFactory
	watches  *watchLog

	// syncs are the outcomes of the loop's syncs, by owner.
	syncs testutil.Syncs[OwnerKey]
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	// Buffered so tests can check what was logged at error level.
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	e := &env{
		local:   newLocalClient(),
		events:  &eventLog{},
		clock:   testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		ctx:     ctx,
		watches: &watchLog{},
	}
	var objects []runtime.Object
	for _, pv := range s.volumes {
		objects = append(objects, pv)
	}
	for _, node := range s.nodes {
		objects = append(objects, node)
	}
	e.kube = testutil.NewClientset(objects...)
	for _, o := range s.owners {
		e.createOwner(t, countedOwner(o, s.volumes))
	}
	e.kube.PrependWatchReactor("*", e.watches.reactor(e.kube.Tracker()))
	e.local.PrependWatchReactor("*", e.watches.reactor(e.local.Tracker()))

	e.registry = metrics.NewKubeRegistry()
	m := NewMetrics()
	e.registry.MustRegister(m.Registerables()...)
	e.factory = informers.NewSharedInformerFactory(e.kube, 0)
	opts := Options{
		Client:         e.kube,
		LocalClient:    e.local,
		VolumeInformer: e.factory.Core().V1().PersistentVolumes(),
		NodeInformer:   e.factory.Core().V1().Nodes(),
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
	var crs externalversions.SharedInformerFactory
	if !s.ownInformers {
		crs = externalversions.NewSharedInformerFactory(e.local, 0)
		opts.LocalInformers = crs
	}
	ctrl, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	e.factory.Start(ctx.Done())
	if crs != nil {
		crs.Start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), ctrl.cachesSynced()...) {
			t.Fatal("caches did not sync")
		}
		e.waitWatching(t)
	}
	t.Cleanup(func() {
		cancel()
		ctrl.loop.ShutDown()
		e.factory.Shutdown()
		if crs != nil {
			crs.Shutdown()
		}
	})
	e.logs = logger.GetSink().(ktesting.Underlier).GetBuffer()
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
	testutil.RunUntilCleanup(t, e.ctx, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
	e.waitWatching(t)
}

// settle waits until the informer caches show what the fake API servers
// hold, object for object and version for version: every write bumps the
// resourceVersion, so a cache that matches is current.
func (e *env) settle(t *testing.T) {
	t.Helper()
	eventually(t, "the caches to catch up", func() bool {
		// With the gate off, there are no PV and Node caches.
		if e.ctrl.volumeIndex != nil && !maps.Equal(e.stored(t, e.kube.Tracker(), pvGVR, "PersistentVolume"), versions(e.ctrl.volumeIndex)) {
			return false
		}
		if e.ctrl.nodeIndex != nil && !maps.Equal(e.stored(t, e.kube.Tracker(), nodeGVR, "Node"), versions(e.ctrl.nodeIndex)) {
			return false
		}
		for _, k := range e.ctrl.kinds {
			if !maps.Equal(e.stored(t, e.local.Tracker(), k.gvr, k.name), versions(k.informer.GetStore())) {
				return false
			}
		}
		return true
	})
}

func (e *env) stored(t *testing.T, tracker k8stesting.ObjectTracker, gvr schema.GroupVersionResource, kind string) map[string]string {
	t.Helper()
	list, err := tracker.List(gvr, gvr.GroupVersion().WithKind(kind), "")
	if err != nil {
		t.Fatal(err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, obj := range items {
		m, _ := meta.Accessor(obj)
		out[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
	}
	return out
}

// versions are the resourceVersions of what store holds, by namespace/name.
func versions(store cache.Store) map[string]string {
	out := map[string]string{}
	for _, obj := range store.List() {
		m, _ := meta.Accessor(obj)
		out[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
	}
	return out
}

// sync runs one sync of key, as a worker would, on settled caches.
func (e *env) sync(t *testing.T, key OwnerKey) (time.Duration, error) {
	t.Helper()
	e.settle(t)
	result, err := e.ctrl.sync(e.ctx, key)
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

// errorLogs returns the error-level log entries written so far.
func (e *env) errorLogs() []string { return testutil.ErrorLogs(e.logs) }

// metric returns the value of a local_volume_cleanup metric by its short
// name, and fails the test if there is no such metric.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.registry, "csi_provisioner_local_volume_cleanup_"+name)
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

// eventually polls cond until it holds or fails the test after 5s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, what, cond)
}
