package pvcprotection

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// The whole loop on running informers: a used claim is held, the pod's
// deletion releases it, a claim without the finalizer gets it.
func TestControllerHoldsAndReleasesOnPodDeletion(t *testing.T) {
	used := newClaim("data", testutil.Deleting())
	missing := newClaim("new")
	missing.Finalizers = nil
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{used, missing},
		pods:   []*v1.Pod{newPod("p1", testNode, "data")},
		run:    true,
	})
	e.Eventually(t, "the finalizer on the new claim", func() bool { return e.hasFinalizer("new") })
	var events []string
	e.Eventually(t, "the hold event", func() bool {
		events = append(events, e.Events.Drain()...)
		return len(events) > 0
	})
	if !strings.HasPrefix(events[0], "Normal DeletionHeldByPod ") || !strings.Contains(events[0], "ns/p1") {
		t.Fatalf("events %q", events)
	}
	if !e.hasFinalizer("data") {
		t.Fatal("a used claim keeps its finalizer")
	}
	e.Eventually(t, "the held gauge", func() bool { return e.metric("held_claims") == 1 })

	testutil.Delete(t, e.Client.CoreV1().Pods(testNS), "p1")
	e.Eventually(t, "the release", func() bool { return !e.hasFinalizer("data") })
	e.Eventually(t, "the release event", func() bool {
		events = append(events, e.Events.Drain()...)
		return slices.ContainsFunc(events, func(ev string) bool { return strings.HasPrefix(ev, "Normal DeletionReleased ") })
	})
	e.Eventually(t, "the held gauge", func() bool { return e.metric("held_claims") == 0 })
	if got := e.metric("finalizers_removed_total"); got != 1 {
		t.Errorf("finalizers removed = %v", got)
	}
	if got := e.metric("finalizers_added_total"); got != 1 {
		t.Errorf("finalizers added = %v", got)
	}
	// The trimmed pod cache and its index are what the controller read.
	if objs, _ := e.ctrl.pods.ByIndex(podClaimIndex, "ns/data"); len(objs) != 0 {
		t.Errorf("deleted pod still indexed: %v", objs)
	}
}

// A held claim one of whose pods goes is looked at again and stays held
// while another pod uses it, without another event: the pod named stays. The
// check runs after the sync the pod's deletion caused, which the loop's
// Processed hook reports.
func TestControllerKeepsHoldingWhileAnotherPodBlocks(t *testing.T) {
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())},
		pods:   []*v1.Pod{newPod("p1", testNode, "data"), newPod("p2", testNode, "data")},
		run:    true,
	})
	// The claim's add is the only event that queues it so far; running
	// pods do not. One sync, which holds.
	if err := e.syncs.WaitAfter(t, e.Timeout, key("data"), 0); err != nil {
		t.Fatal(err)
	}
	want := "Normal DeletionHeldByPod Deletion postponed: the claim is used by pod ns/p1 and 1 more"
	if ev := e.Events.Drain(); len(ev) != 1 || ev[0] != want {
		t.Fatalf("events %q, want %q", ev, want)
	}

	testutil.Delete(t, e.Client.CoreV1().Pods(testNS), "p2")
	if err := e.syncs.WaitAfter(t, e.Timeout, key("data"), 1); err != nil {
		t.Fatal(err)
	}
	if objs, _ := e.ctrl.pods.ByIndex(podClaimIndex, "ns/data"); len(objs) != 1 {
		t.Fatalf("the sync after p2's deletion saw %d pods, want p1 alone", len(objs))
	}
	if !e.hasFinalizer("data") || len(e.writes()) != 0 {
		t.Fatal("p1 still uses the claim: it must keep its finalizer")
	}
	if ev := e.Events.Drain(); len(ev) != 0 {
		t.Errorf("events %q: p1, the pod named, still blocks", ev)
	}
	if got := e.metric("held_claims"); got != 1 {
		t.Errorf("held claims = %v", got)
	}
}
