package pvcprotection

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// The race KCM avoids with a live list: a pod created just before the claim's
// deletion is in the API but not yet in the pod cache.
func TestPodMissingFromCacheIsWaitedFor(t *testing.T) {
	claim := newClaim("data", testutil.Deleting())
	late := withRV(newPod("late", testNode, "data"), "15")
	api := &apiServer{current: "20", watches: [][]watch.Event{{podEvent(watch.Added, late), bookmark("20")}}}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, apiOnly: []*v1.Pod{late}, cacheRV: "10", realFreshness: true})
	api.install(e.Client)

	result := e.mustSync("data")
	if len(e.writes()) != 0 {
		t.Fatal("released a claim whose pod the cache has not seen yet")
	}
	if got := api.requests(); got != "1 probes, 1 watches, 0 lists" {
		t.Fatalf("requests: %s", got)
	}
	if probe := api.probeOpts[0]; probe.ResourceVersion != "" || probe.FieldSelector != "metadata.name="+noSuchPod {
		t.Errorf("probe options %+v: want a consistent read selecting no pod", probe)
	}
	opts := api.watchOpts[0]
	if opts.ResourceVersion != "10" || !opts.AllowWatchBookmarks || opts.TimeoutSeconds == nil || *opts.TimeoutSeconds != 3 {
		t.Errorf("watch options %+v: want from the cache's version, with bookmarks and a 3s timeout", opts)
	}
	// It asks the loop to bring it back shortly.
	if result.RequeueAfter != e.ctrl.notReadyDelay {
		t.Fatalf("sync result %+v, want a requeue after %v", result, e.ctrl.notReadyDelay)
	}

	// The cache is still behind: wait again, without asking the API server.
	if result := e.mustSync("data"); result.RequeueAfter != e.ctrl.notReadyDelay {
		t.Fatalf("sync result %+v, want a requeue after %v", result, e.ctrl.notReadyDelay)
	}
	if len(e.writes()) != 0 || api.probes.Load() != 1 || api.watchCalls.Load() != 1 {
		t.Fatalf("while the cache catches up: %d writes, %d probes, %d watches", len(e.writes()), api.probes.Load(), api.watchCalls.Load())
	}

	// The informer delivers the pod.
	testutil.AddTo(t, e.ctrl.pods, late)
	e.mustSync("data")
	if !e.hasFinalizer("data") || len(e.writes()) != 0 {
		t.Fatal("the claim is used by the late pod and must be held")
	}
	ev := e.Events.Drain()
	if len(ev) != 1 || !strings.Contains(ev[0], "DeletionHeldByPod") || !strings.Contains(ev[0], "ns/late") {
		t.Fatalf("events %q, want a hold naming ns/late", ev)
	}
	if got := api.requests(); got != "1 probes, 1 watches, 0 lists" {
		t.Errorf("requests: %s", got)
	}
	if got := e.metric("freshness_checks_total", resultWatch); got != 1 {
		t.Errorf("watch checks = %v", got)
	}
}

// The replay shows only pods of other claims: once the cache has them, the
// claim goes.
func TestReplayOfUnrelatedPodsReleasesOnceCaught(t *testing.T) {
	other := withRV(newPod("other", testNode, "other"), "15")
	api := &apiServer{current: "20", watches: [][]watch.Event{{podEvent(watch.Added, other), bookmark("21")}}}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, apiOnly: []*v1.Pod{other}, cacheRV: "10", realFreshness: true})
	api.install(e.Client)
	e.mustSync("data")
	if len(e.writes()) != 0 {
		t.Fatal("released before the cache caught up")
	}
	testutil.AddTo(t, e.ctrl.pods, other)
	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("an unused claim must be released once the cache is fresh")
	}
}

// An event past the target is not waited for: it was written after the
// claim was seen deleting.
func TestEventsPastTheTargetAreNotWaitedFor(t *testing.T) {
	late := withRV(newPod("late", testNode, "other"), "25")
	api := &apiServer{current: "20", watches: [][]watch.Event{{podEvent(watch.Added, late)}}}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, cacheRV: "10", realFreshness: true})
	api.install(e.Client)
	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("nothing at or before the target: the cache was complete")
	}
}

func TestWatchEndingEarlyIsResumed(t *testing.T) {
	other := withRV(newPod("other", testNode, "other"), "12")
	api := &apiServer{current: "20", watches: [][]watch.Event{
		{podEvent(watch.Modified, other)},
		{bookmark("20")},
	}}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, cacheRV: "10", realFreshness: true})
	api.install(e.Client)
	e.mustSync("data")
	if api.watchCalls.Load() != 2 || api.watchOpts[1].ResourceVersion != "12" {
		t.Fatalf("%d watches, options %+v: want a second one from 12", api.watchCalls.Load(), api.watchOpts)
	}
	if len(e.writes()) != 0 {
		t.Fatal("the cache has not reached 12 yet")
	}
	e.ctrl.pods.Bookmark("12")
	if result := e.mustSync("data"); result != reconcile.Done {
		t.Fatalf("sync result %+v once the cache caught up, want done", result)
	}
	if e.hasFinalizer("data") {
		t.Fatal("released once the cache reached the last replayed event")
	}
}

func TestWatchNeverReachingTheTargetFails(t *testing.T) {
	api := &apiServer{current: "20"}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, cacheRV: "10", realFreshness: true})
	api.install(e.Client)
	if err := e.sync("data"); err == nil {
		t.Fatal("want an error for a retry")
	}
	if n := api.watchCalls.Load(); int(n) != watchAttempts {
		t.Errorf("%d watches, want %d", n, watchAttempts)
	}
	if len(e.writes()) != 0 {
		t.Fatal("nothing may be released")
	}
	// The failed check is not kept: the retry checks again.
	api.watches = [][]watch.Event{nil, nil, nil, {bookmark("20")}}
	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("the retry should have released the claim")
	}
}

func TestCheckStartedBeforeTheDeletionWasSeenIsNotTrusted(t *testing.T) {
	api := &apiServer{current: "20", block: make(chan struct{})}
	a, b := newClaim("a", testutil.Deleting()), newClaim("b", testutil.Deleting())
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{a, b}, cacheRV: "30", realFreshness: true})
	api.install(e.Client)

	e.ctrl.onClaim(a)
	errs := make(chan error, 2)
	go func() { errs <- e.sync("a") }()
	e.Eventually(t, "the first probe", func() bool { return api.probes.Load() == 1 })
	// b is seen deleting while a's check is on its way, and asks for a
	// check before a's ends.
	e.ctrl.onClaim(b)
	go func() { errs <- e.sync("b") }()
	e.Eventually(t, "b to ask for a check", func() bool { return e.asked.calls.Load() == 2 })
	close(api.block)
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := api.probes.Load(); n != 2 {
		t.Fatalf("%d probes: b needs a check of its own", n)
	}
}
