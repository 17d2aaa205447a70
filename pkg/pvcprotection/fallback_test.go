package pvcprotection

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestTooOldCacheVersionFallsBackToOneList(t *testing.T) {
	gone := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
	for name, script := range map[string]func(*apiServer){
		"watch refused": func(s *apiServer) { s.watchErr = apierrors.NewResourceExpired("too old resource version") },
		"error event":   func(s *apiServer) { s.watches = [][]watch.Event{{{Type: watch.Error, Object: gone}}} },
		"gone":          func(s *apiServer) { s.watchErr = apierrors.NewGone("too old") },
	} {
		t.Run(name, func(t *testing.T) {
			user := newPod("user", testNode, "used")
			api := &apiServer{current: "20", livePods: &v1.PodList{
				ListMeta: metav1.ListMeta{ResourceVersion: "25"},
				Items:    []v1.Pod{*user, *newPod("pending", "", "free")},
			}}
			script(api)
			used, free := newClaim("used", testutil.Deleting()), newClaim("free", testutil.Deleting())
			e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{used, free}, apiOnly: []*v1.Pod{user}, cacheRV: "10", realFreshness: true})
			api.install(e.Client)
			e.ctrl.onClaim(used)
			e.ctrl.onClaim(free)
			e.mustSync("used")
			e.mustSync("free")
			if l := api.lists.Load(); l != 1 {
				t.Fatalf("%d pod lists, want one for both claims", l)
			}
			if !e.hasFinalizer("used") {
				t.Error("the live list shows a pod using the claim")
			}
			if e.hasFinalizer("free") {
				t.Error("the live list shows no pod that can use the claim")
			}
			if got := e.metric("live_pod_lists_total"); got != 1 {
				t.Errorf("live pod lists = %v", got)
			}
			if got := e.metric("freshness_checks_total", resultList); got != 1 {
				t.Errorf("list checks = %v", got)
			}
			// Later syncs trust the cache once it has passed the list.
			testutil.AddTo(t, e.ctrl.pods, withRV(user.DeepCopy(), "25"))
			e.mustSync("used")
			if l := api.lists.Load(); l != 1 || !e.hasFinalizer("used") {
				t.Errorf("after the cache caught up: %d lists, finalizer kept %v", l, e.hasFinalizer("used"))
			}
			// The pod goes; the list is stale now, the cache is not.
			mustDelete(t, e, "user")
			e.ctrl.pods.Bookmark("26")
			e.mustSync("used")
			if l := api.lists.Load(); l != 1 || e.hasFinalizer("used") {
				t.Errorf("after the pod went: %d lists, finalizer kept %v; want the claim released from the cache", l, e.hasFinalizer("used"))
			}
		})
	}
}

// fixedVersion is a versionSource stuck at one answer.
type fixedVersion string

func (v fixedVersion) LastStoreSyncResourceVersion() string { return string(v) }

func TestCacheWithoutVersionListsEveryTime(t *testing.T) {
	client := fake.NewClientset()
	api := &apiServer{current: "20"}
	api.install(client)
	f := newChecker(client, fixedVersion(""), nil, &stamper{clock: testingclock.NewFakeClock(time.Time{})}, NewMetrics())
	seen := f.stamps.now()
	for i := 0; i < 2; i++ {
		got, err := f.Fresh(context.Background(), testNS, seen)
		if err != nil {
			t.Fatal(err)
		}
		if got.ready || got.live == nil {
			t.Fatalf("answer %+v: without the cache's version only a live list can decide", got)
		}
	}
	if p, l := api.probes.Load(), api.lists.Load(); p != 0 || l != 2 {
		t.Fatalf("%d probes, %d lists: a live list cannot be reused when the cache cannot tell how old it is", p, l)
	}
}

func TestOldResultsAreForgotten(t *testing.T) {
	client := fake.NewClientset()
	api := &apiServer{current: "20"}
	api.install(client)
	clk := testingclock.NewFakeClock(time.Time{})
	f := newChecker(client, fixedVersion("30"), nil, &stamper{clock: clk}, NewMetrics())
	ctx := context.Background()
	if _, err := f.Fresh(ctx, "one", f.stamps.now()); err != nil {
		t.Fatal(err)
	}
	clk.Step(resultTTL + 1)
	if _, err := f.Fresh(ctx, "two", f.stamps.now()); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.namespaces["one"]; ok || len(f.namespaces) != 1 {
		t.Fatalf("namespaces kept: %v", f.namespaces)
	}
}

func TestTrimmedPodsKeepTheCacheVersion(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{podClaimIndex: podClaimKeys})
	pod, _ := TrimPod(withRV(newPod("p", testNode, "data"), "42"))
	if err := store.Add(pod); err != nil {
		t.Fatal(err)
	}
	if got := store.LastStoreSyncResourceVersion(); got != "42" {
		t.Fatalf("cache version %q after adding a trimmed pod; the freshness check needs 42 (is the AtomicFIFO client-go feature off?)", got)
	}
}
