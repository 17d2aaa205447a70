package cleanup

import (
	"context"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	testingclock "k8s.io/utils/clock/testing"
)

const (
	testNS    = "local-storage"
	ownerName = "disks"
	testNode  = "node-1"
	testGrace = 5 * time.Minute
)

var (
	kinds     = []string{KindLocalVolume, KindLocalVolumeSet}
	pvGVR     = corev1.SchemeGroupVersion.WithResource("persistentvolumes")
	nodeGVR   = corev1.SchemeGroupVersion.WithResource("nodes")
	listKinds = map[schema.GroupVersionResource]string{
		LocalVolumeResource:    "LocalVolumeList",
		LocalVolumeSetResource: "LocalVolumeSetList",
	}
)

// forEachKind runs test once for each owner kind: both get the same rules.
func forEachKind(t *testing.T, test func(t *testing.T, kind string)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { test(t, kind) })
	}
}

func keyOf(kind string) string { return ownerKey(kind, testNS, ownerName) }

// --- the environment ---

// setup is what a test starts from.
type setup struct {
	owners  []*unstructured.Unstructured
	volumes []*corev1.PersistentVolume
	nodes   []*corev1.Node
	// disabled turns the LocalVolumeCleanup gate off.
	disabled bool
	// ownInformers leaves Options.CRInformers nil, so that the controller
	// makes its own, which only Run starts: for tests that run it.
	ownInformers bool
	// realClock uses the real clock instead of a fake one.
	realClock bool
	grace     time.Duration
	// limiter replaces the default rate limiter, to make retries fast.
	limiter workqueue.TypedRateLimiter[string]
}

// env is a controller over started informers of fake clients. Tests either
// call sync themselves or start the workers with run.
type env struct {
	kube     *fake.Clientset
	dyn      *fakeDynamicClient
	ctrl     *Controller
	events   *eventLog
	clock    *testingclock.FakeClock
	registry metrics.KubeRegistry
	ctx      context.Context
	logs     ktesting.Buffer
	rv       *atomic.Int64
	factory  informers.SharedInformerFactory
	watches  *watchLog
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	// Buffered so tests can check what was logged at error level.
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	var objects []runtime.Object
	for _, pv := range s.volumes {
		objects = append(objects, pv)
	}
	for _, node := range s.nodes {
		objects = append(objects, node)
	}
	kube := fake.NewClientset(objects...)
	var owners []runtime.Object
	for _, u := range s.owners {
		owners = append(owners, countedOwner(u, s.volumes))
	}
	dyn := newFakeDynamicClient(runtime.NewScheme(), listKinds, owners...)
	rv := &atomic.Int64{}
	rv.Store(1000)
	watches := &watchLog{}
	kube.PrependWatchReactor("*", watches.reactor(kube.Tracker()))
	dyn.PrependWatchReactor("*", watches.reactor(dyn.Tracker()))
	serverSemantics(&kube.Fake, kube.Tracker(), pvGVR, rv)
	serverSemantics(&dyn.Fake, dyn.Tracker(), LocalVolumeResource, rv)
	serverSemantics(&dyn.Fake, dyn.Tracker(), LocalVolumeSetResource, rv)

	registry := metrics.NewKubeRegistry()
	m := NewMetrics()
	registry.MustRegister(m.Registerables()...)
	factory := informers.NewSharedInformerFactory(kube, 0)
	events := &eventLog{}
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	opts := Options{
		Client:         kube,
		Dynamic:        dyn,
		VolumeInformer: factory.Core().V1().PersistentVolumes(),
		NodeInformer:   factory.Core().V1().Nodes(),
		Enabled:        !s.disabled,
		EventRecorder:  events,
		Metrics:        m,
		RateLimiter:    s.limiter,
		Clock:          clk,
		NodeGoneGrace:  s.grace,
	}
	if s.realClock {
		opts.Clock = nil
	}
	var crs dynamicinformer.DynamicSharedInformerFactory
	if !s.ownInformers {
		crs = dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
		opts.CRInformers = crs
	}
	ctrl, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if crs != nil {
		crs.Start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), ctrl.cachesSynced()...) {
			t.Fatal("caches did not sync")
		}
	}
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
		if crs != nil {
			crs.Shutdown()
		}
	})
	e := &env{kube: kube, dyn: dyn, ctrl: ctrl, events: events, clock: clk, registry: registry, ctx: ctx, rv: rv, factory: factory, watches: watches}
	e.logs = logger.GetSink().(ktesting.Underlier).GetBuffer()
	return e
}

// countedOwner is u as the controller leaves a LocalVolumeSet at rest:
// with a totalProvisionedDeviceCount of its volumes, unless u has one
// (withDeviceCount), so that only tests about the count see it written.
func countedOwner(u *unstructured.Unstructured, volumes []*corev1.PersistentVolume) *unstructured.Unstructured {
	if u.GetKind() != KindLocalVolumeSet {
		return u
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "totalProvisionedDeviceCount"); found {
		return u
	}
	key := ownerKey(KindLocalVolumeSet, u.GetNamespace(), u.GetName())
	n := 0
	for _, pv := range volumes {
		if volumeOwner(pv) == key {
			n++
		}
	}
	if n == 0 {
		return u
	}
	u = u.DeepCopy()
	withDeviceCount(n)(u)
	return u
}

// run starts the workers; the test's cleanup stops them and waits.
func (e *env) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { e.ctrl.Run(ctx, 2); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
	e.waitWatching(t)
}

// settle waits until the informer caches show what the fake API servers
// hold, object for object and version for version: every write bumps the
// resourceVersion, so a cache that matches is current.
func (e *env) settle(t *testing.T) {
	t.Helper()
	eventually(t, "the caches to catch up", func() bool {
		// With the gate off, there are no PV and Node caches.
		if e.ctrl.volumeIndex != nil && !sameVersions(e.stored(t, e.kube.Tracker(), pvGVR, "PersistentVolume"), e.cached(t, e.ctrl.volumeIndex)) {
			return false
		}
		if e.ctrl.nodeIndex != nil && !sameVersions(e.stored(t, e.kube.Tracker(), nodeGVR, "Node"), e.cached(t, e.ctrl.nodeIndex)) {
			return false
		}
		for _, k := range e.ctrl.kinds {
			stored := e.stored(t, e.dyn.Tracker(), k.gvr, k.name)
			objs, err := k.lister.List(labels.Everything())
			if err != nil {
				t.Fatal(err)
			}
			cached := map[string]string{}
			for _, obj := range objs {
				m, _ := meta.Accessor(obj)
				cached[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
			}
			if !sameVersions(stored, cached) {
				return false
			}
		}
		return true
	})
}

func sameVersions(a, b map[string]string) bool { return maps.Equal(a, b) }

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

func (e *env) cached(t *testing.T, indexer cache.Indexer) map[string]string {
	t.Helper()
	out := map[string]string{}
	if indexer == nil {
		return out
	}
	for _, obj := range indexer.List() {
		m, _ := meta.Accessor(obj)
		out[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
	}
	return out
}

// sync runs one sync of key, as a worker would, on settled caches.
func (e *env) sync(t *testing.T, key string) (time.Duration, error) {
	t.Helper()
	e.settle(t)
	return e.ctrl.sync(e.ctx, key)
}

// mustSync syncs key and fails the test on an error.
func (e *env) mustSync(t *testing.T, key string) time.Duration {
	t.Helper()
	after, err := e.sync(t, key)
	if err != nil {
		t.Fatalf("sync %s: %v", key, err)
	}
	return after
}

// owner reads an owner from the fake API server, nil if it is gone.
func (e *env) owner(t *testing.T, kind string) *unstructured.Unstructured {
	t.Helper()
	gvr := e.ctrl.kinds[kind].gvr
	obj, err := e.dyn.Tracker().Get(gvr, testNS, ownerName)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*unstructured.Unstructured)
}

// pv reads a PV from the fake API server, nil if it is gone.
func (e *env) pv(t *testing.T, name string) *corev1.PersistentVolume {
	t.Helper()
	obj, err := e.kube.Tracker().Get(pvGVR, "", name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*corev1.PersistentVolume)
}

// updatePV changes a PV on the fake API server, as another client would.
func (e *env) updatePV(t *testing.T, name string, change pvOption) {
	t.Helper()
	pv := e.pv(t, name)
	if pv == nil {
		t.Fatalf("PV %s not found", name)
	}
	change(pv)
	pv.ResourceVersion = strconv.FormatInt(e.rv.Add(1), 10)
	if err := e.kube.Tracker().Update(pvGVR, pv, ""); err != nil {
		t.Fatal(err)
	}
}

// agentReleases does what the node agent does once it has cleaned a PV
// being deleted: it removes its finalizer, and the PV goes.
func (e *env) agentReleases(t *testing.T, name string) {
	t.Helper()
	pv := e.pv(t, name)
	if pv == nil || pv.DeletionTimestamp == nil {
		t.Fatalf("PV %s is not being deleted: %v", name, pv)
	}
	e.updatePV(t, name, func(pv *corev1.PersistentVolume) { pv.Finalizers = nil })
	if err := e.kube.Tracker().Delete(pvGVR, "", name); err != nil {
		t.Fatal(err)
	}
}

func (e *env) createNode(t *testing.T, node *corev1.Node) {
	t.Helper()
	node.ResourceVersion = strconv.FormatInt(e.rv.Add(1), 10)
	if err := e.kube.Tracker().Add(node); err != nil {
		t.Fatal(err)
	}
}

func (e *env) deleteNode(t *testing.T, name string) {
	t.Helper()
	if err := e.kube.Tracker().Delete(nodeGVR, "", name); err != nil {
		t.Fatal(err)
	}
}

// writes lists the writes sent to the fake API servers, as "verb resource
// name", the resource with its subresource ("localvolumes/status").
func (e *env) writes() []string {
	var out []string
	for _, a := range append(e.kube.Actions(), e.dyn.Actions()...) {
		switch a := a.(type) {
		case k8stesting.PatchActionImpl:
			out = append(out, "patch "+path.Join(a.Resource.Resource, a.Subresource)+" "+a.Name)
		case k8stesting.DeleteActionImpl:
			out = append(out, "delete "+a.Resource.Resource+" "+a.Name)
		case k8stesting.CreateActionImpl, k8stesting.UpdateActionImpl:
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

// writesBesidesStatus is writes without those of the owners' status.
func (e *env) writesBesidesStatus() []string {
	return slices.DeleteFunc(e.writes(), func(w string) bool { return strings.Contains(w, "/status ") })
}

// statusPatches returns the patches sent for the status of owners.
func (e *env) statusPatches() []k8stesting.PatchActionImpl {
	var out []k8stesting.PatchActionImpl
	for _, a := range e.dyn.Actions() {
		if p, ok := a.(k8stesting.PatchActionImpl); ok && p.Subresource == "status" {
			out = append(out, p)
		}
	}
	return out
}

// deletes returns the delete actions sent for PVs.
func (e *env) deletes() []k8stesting.DeleteActionImpl {
	var out []k8stesting.DeleteActionImpl
	for _, a := range e.kube.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok && d.Resource == pvGVR {
			out = append(out, d)
		}
	}
	return out
}

// patches returns the patch actions sent for PVs or owners, not for their
// status.
func (e *env) patches(resource string) []k8stesting.PatchActionImpl {
	var out []k8stesting.PatchActionImpl
	for _, a := range append(e.kube.Actions(), e.dyn.Actions()...) {
		if p, ok := a.(k8stesting.PatchActionImpl); ok && p.Resource.Resource == resource && p.Subresource == "" {
			out = append(out, p)
		}
	}
	return out
}

// errorLogs returns the error-level log entries written so far.
func (e *env) errorLogs() []string {
	var out []string
	for _, entry := range e.logs.Data() {
		if entry.Type == ktesting.LogError {
			out = append(out, entry.Message)
		}
	}
	return out
}

// metric returns the value of a local_volume_cleanup metric by its short
// name.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	v, ok := testutil.MetricValue(t, e.registry, "csi_provisioner_local_volume_cleanup_"+name)
	if !ok {
		t.Fatalf("metric %s not found", name)
	}
	return v
}

func hasOwnerFinalizer(u *unstructured.Unstructured) bool {
	return u != nil && slices.Contains(u.GetFinalizers(), local.LocalVolumeProtectionFinalizer)
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

func fastRetries() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond)
}
