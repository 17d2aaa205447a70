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
