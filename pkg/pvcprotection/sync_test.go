package pvcprotection

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestFinalizerAddedWhenMissing(t *testing.T) {
	claim := newClaim("old")
	claim.Finalizers = []string{"other"}
	claim.ResourceVersion = "7"
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	e.ctrl.onClaim(claim)
	if q := e.queued(); len(q) != 1 || q[0] != "ns/old" {
		t.Fatalf("queued %v, want the claim that misses the finalizer", q)
	}
	e.mustSync("old")
	writes := e.writes()
	if len(writes) != 1 {
		t.Fatalf("%d writes, want 1", len(writes))
	}
	if w := writes[0]; w.ResourceVersion != "7" || w.UID != claim.UID {
		t.Errorf("the write must be conditional on the cached version: %s %s", w.ResourceVersion, w.UID)
	}
	if f := writes[0].Finalizers; len(f) != 2 || f[0] != "other" || f[1] != Finalizer {
		t.Errorf("finalizers %v", f)
	}
	if got := e.metric("finalizers_added_total"); got != 1 {
		t.Errorf("finalizers added = %v", got)
	}
}

func TestClaimWithFinalizerIsLeftAlone(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("ok")}, pods: []*v1.Pod{newPod("p", testNode, "ok")}})
	e.ctrl.onClaim(newClaim("ok"))
	if q := e.queued(); len(q) != 0 {
		t.Errorf("queued %v", q)
	}
	e.mustSync("ok")
	if len(e.Client.Actions()) != 0 || e.fresh.calls != 0 {
		t.Errorf("a live claim with the finalizer needs no request, got %v", e.Client.Actions())
	}
}

func TestUnusedDeletingClaimIsReleased(t *testing.T) {
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())},
		pods:   []*v1.Pod{newPod("other", testNode, "other"), newPod("pending", "", "data")},
	})
	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("the finalizer of an unused claim must go")
	}
	if w := e.writes()[0]; w.ResourceVersion != "1" || len(w.Finalizers) != 0 {
		t.Errorf("wrote version %s with finalizers %v", w.ResourceVersion, w.Finalizers)
	}
	if e.fresh.calls != 1 {
		t.Errorf("freshness asked %d times, want 1", e.fresh.calls)
	}
	if ev := e.Events.Drain(); len(ev) != 0 {
		t.Errorf("a claim never held needs no event: %v", ev)
	}
	// The cache still shows the version just released: no second write and
	// no second check.
	e.mustSync("data")
	if n := len(e.writes()); n != 1 || e.fresh.calls != 1 {
		t.Errorf("after a stale resync: %d writes, %d checks", n, e.fresh.calls)
	}
}

func TestUsedClaimIsHeldWithoutFreshnessCheck(t *testing.T) {
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())},
		pods:   []*v1.Pod{newPod("p1", testNode, "data")},
	})
	e.mustSync("data")
	if !e.hasFinalizer("data") || len(e.writes()) != 0 {
		t.Fatal("a used claim keeps its finalizer")
	}
	if e.fresh.calls != 0 {
		t.Error("a blocking pod in the cache settles it; no freshness check is needed")
	}
}

func TestConflictIsRetriedQuietly(t *testing.T) {
	limiter := testutil.InstantRetries[cache.ObjectName]()
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, realLoop: true, limiter: limiter})
	testutil.FailNext(e.Client, -1, apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumeclaims"}, "data", nil), claimUpdate...)
	// Through the loop, whose default rate limiter this test replaces.
	e.ctrl.loop.Add(key("data"))
	e.ctrl.loop.ProcessNext(context.Background())
	if err := e.syncs.Of(key("data"))[0]; !apierrors.IsConflict(err) {
		t.Fatalf("err = %v, want the conflict", err)
	}
	if n := limiter.NumRequeues(key("data")); n != 1 {
		t.Errorf("requeues = %d, want a rate-limited retry", n)
	}
	if n := e.ctrl.loop.Len(); n != 1 {
		t.Errorf("%d keys queued, want the claim back for its retry", n)
	}
	if got := e.metric("finalizers_removed_total"); got != 0 {
		t.Errorf("a failed write is no removal: %v", got)
	}
}

func TestForbiddenWriteNamesTheRBACRule(t *testing.T) {
	claim := newClaim("data")
	claim.Finalizers = nil
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	testutil.FailNext(e.Client, -1, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "data", nil), claimUpdate...)
	if err := e.sync("data"); err == nil || !strings.Contains(err.Error(), "must allow update") {
		t.Fatalf("err = %v", err)
	}
}

func TestClaimGoneMeanwhileIsNoError(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}})
	if err := e.Client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), testNS, "data"); err != nil {
		t.Fatal(err)
	}
	e.mustSync("data")
	e.mustSync("absent")
}

func TestFreshnessErrorIsRetried(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}})
	e.fresh.err = apierrors.NewServiceUnavailable("try later")
	if err := e.sync("data"); err == nil {
		t.Fatal("a failed freshness check must fail the sync")
	}
	if len(e.writes()) != 0 {
		t.Fatal("nothing may be released without a freshness answer")
	}
}

func TestNewValidates(t *testing.T) {
	e := testutil.NewEnv(t, testutil.EnvOptions{})
	good := Options{
		Client:        e.Client,
		ClaimInformer: e.Informers.Core().V1().PersistentVolumeClaims(),
		PodInformer:   e.Informers.Core().V1().Pods(),
		ClassLister:   e.Informers.Storage().V1().StorageClasses().Lister(),
		DriverName:    testDriver,
		EventRecorder: e.Events,
	}
	for name, change := range map[string]func(*Options){
		"no client":         func(o *Options) { o.Client = nil },
		"no pod informer":   func(o *Options) { o.PodInformer = nil },
		"no driver":         func(o *Options) { o.DriverName = "" },
		"no class lister":   func(o *Options) { o.ClassLister = nil },
		"no event recorder": func(o *Options) { o.EventRecorder = nil },
	} {
		opts := good
		change(&opts)
		if _, err := New(opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	opts := good
	opts.DriverName, opts.ClassLister, opts.AllClaims = "", nil, true
	if _, err := New(opts); err != nil {
		t.Errorf("all claims need no driver: %v", err)
	}
	// A second controller on the same informers reuses the index.
	if _, err := New(good); err != nil {
		t.Errorf("second controller: %v", err)
	}
}
