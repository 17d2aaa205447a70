package pvcprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// A namespace of few pods is listed live at once, as kube-controller-manager
// lists it, instead of waiting for a watch bookmark: a claim deleted alone
// in a quiet namespace goes as fast as with KCM.
func TestQuietSmallNamespaceIsReleasedAfterOneBoundedList(t *testing.T) {
	api := &apiServer{current: "20"}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, cacheRV: "10", realFreshness: true, smallNamespace: true})
	api.install(e.Client)

	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("no pod uses the claim: it must go at once")
	}
	if got := api.requests(); got != "0 probes, 0 watches, 1 lists" {
		t.Fatalf("requests: %s; want the one bounded list", got)
	}
	if opts := api.listOpts[0]; opts.Limit != int64(smallNamespacePods) || opts.ResourceVersion != "" {
		t.Errorf("list options %+v: want a consistent read of at most %d pods", opts, smallNamespacePods)
	}
	if got := e.metric("freshness_checks_total", resultSmallList); got != 1 {
		t.Errorf("small-list checks = %v", got)
	}
}

// The live list is a consistent read: a pod the cache has not seen yet
// holds the claim.
func TestSmallNamespaceListSeesAPodTheCacheMisses(t *testing.T) {
	late := withRV(newPod("late", testNode, "data"), "15")
	api := &apiServer{current: "20", livePods: &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "20"}, Items: []v1.Pod{*late}}}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, apiOnly: []*v1.Pod{late}, cacheRV: "10", realFreshness: true, smallNamespace: true})
	api.install(e.Client)

	e.mustSync("data")
	if !e.hasFinalizer("data") || len(e.writes()) != 0 {
		t.Fatal("released a claim that a pod missing from the cache uses")
	}
	if w := api.watchCalls.Load(); w != 0 {
		t.Fatalf("%d watches; the list alone decides", w)
	}
}

// A namespace that grew past the bound since the cache counted it is not
// listed further: the watch replays it from the bounded list's version,
// without another probe.
func TestNamespaceGrownPastTheBoundGoesOnWithTheWatch(t *testing.T) {
	api := &apiServer{current: "20", pastLimit: true, watches: [][]watch.Event{{bookmark("20")}}}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, cacheRV: "10", realFreshness: true, smallNamespace: true})
	api.install(e.Client)

	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("the replay showed no pod: the claim must go")
	}
	if got := api.requests(); got != "0 probes, 1 watches, 1 lists" {
		t.Fatalf("requests: %s; want the bounded list, then one watch", got)
	}
	if got := e.metric("freshness_checks_total", resultWatch); got != 1 {
		t.Errorf("watch checks = %v", got)
	}
}

// A namespace the cache counts beyond the bound is never listed.
func TestLargeNamespaceIsNotListed(t *testing.T) {
	saved := smallNamespacePods
	smallNamespacePods = 2
	t.Cleanup(func() { smallNamespacePods = saved })
	pods := []*v1.Pod{newPod("a", testNode, "x"), newPod("b", testNode, "y"), newPod("c", testNode, "z")}
	api := &apiServer{current: "20", watches: [][]watch.Event{{bookmark("20")}}}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, pods: pods, cacheRV: "10", realFreshness: true, smallNamespace: true})
	api.install(e.Client)

	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("no pod uses the claim: it must go")
	}
	if p, l := api.probes.Load(), api.lists.Load(); p != 1 || l != 0 {
		t.Fatalf("requests: %d probes, %d lists; a namespace past the bound gets the probe, never a list", p, l)
	}
}
