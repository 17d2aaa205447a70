package pvcprotection

import (
	"context"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The whole loop on running informers: a used claim is held, the pod's
// deletion releases it, a claim without the finalizer gets it.
func TestControllerHoldsAndReleasesOnPodDeletion(t *testing.T) {
	used := deleting(newClaim("data"))
	missing := newClaim("new")
	missing.Finalizers = nil
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{used, missing},
		pods:   []*v1.Pod{newPod("p1", testNode, "data")},
		run:    true,
	})
	eventually(t, "the finalizer on the new claim", func() bool { return e.hasFinalizer("new") })
	var events []string
	eventually(t, "the hold event", func() bool {
		events = append(events, e.events()...)
		return len(events) > 0
	})
	if !strings.HasPrefix(events[0], "Normal DeletionHeldByPod ") || !strings.Contains(events[0], "ns/p1") {
		t.Fatalf("events %q", events)
	}
	if !e.hasFinalizer("data") {
		t.Fatal("a used claim keeps its finalizer")
	}
	eventually(t, "the held gauge", func() bool { return e.metric("held_claims") == 1 })

	if err := e.client.CoreV1().Pods(testNS).Delete(context.Background(), "p1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the release", func() bool { return !e.hasFinalizer("data") })
	eventually(t, "the release event", func() bool {
		events = append(events, e.events()...)
		return slices.ContainsFunc(events, func(ev string) bool { return strings.HasPrefix(ev, "Normal DeletionReleased ") })
	})
	eventually(t, "the held gauge", func() bool { return e.metric("held_claims") == 0 })
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
		claims: []*v1.PersistentVolumeClaim{deleting(newClaim("data"))},
		pods:   []*v1.Pod{newPod("p1", testNode, "data"), newPod("p2", testNode, "data")},
		run:    true,
	})
	// The claim's add is the only event that queues it so far; running
	// pods do not. One sync, which holds.
	if err := e.waitSyncs("data", 0); err != nil {
		t.Fatal(err)
	}
	want := "Normal DeletionHeldByPod Deletion postponed: the claim is used by pod ns/p1 and 1 more"
	if ev := e.events(); len(ev) != 1 || ev[0] != want {
		t.Fatalf("events %q, want %q", ev, want)
	}

	if err := e.client.CoreV1().Pods(testNS).Delete(context.Background(), "p2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := e.waitSyncs("data", 1); err != nil {
		t.Fatal(err)
	}
	if objs, _ := e.ctrl.pods.ByIndex(podClaimIndex, "ns/data"); len(objs) != 1 {
		t.Fatalf("the sync after p2's deletion saw %d pods, want p1 alone", len(objs))
	}
	if !e.hasFinalizer("data") || len(e.writes()) != 0 {
		t.Fatal("p1 still uses the claim: it must keep its finalizer")
	}
	if ev := e.events(); len(ev) != 0 {
		t.Errorf("events %q: p1, the pod named, still blocks", ev)
	}
	if got := e.metric("held_claims"); got != 1 {
		t.Errorf("held claims = %v", got)
	}
}
