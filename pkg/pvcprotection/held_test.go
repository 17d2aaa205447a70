package pvcprotection

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestHoldEmitsOneEventNamingThePod(t *testing.T) {
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())},
		pods:   []*v1.Pod{newPod("p2", testNode, "data"), newPod("p1", testNode, "data"), newPod("p3", testNode, "data")},
	})
	for i := 0; i < 5; i++ {
		e.mustSync("data")
	}
	ev := e.Events.Drain()
	if len(ev) != 1 {
		t.Fatalf("events %q, want one for the whole hold", ev)
	}
	want := "Normal DeletionHeldByPod Deletion postponed: the claim is used by pod ns/p1 and 2 more"
	if ev[0] != want {
		t.Errorf("event %q, want %q", ev[0], want)
	}
	if got := e.metric("held_claims"); got != 1 {
		t.Errorf("held claims = %v", got)
	}

	// Another pod going changes nothing a person needs to know.
	mustDelete(t, e, "p3")
	e.mustSync("data")
	if ev := e.Events.Drain(); len(ev) != 0 {
		t.Errorf("events %q after another pod left", ev)
	}
	// The named pod going while p2 still blocks: say so, once.
	mustDelete(t, e, "p1")
	e.mustSync("data")
	e.mustSync("data")
	ev = e.Events.Drain()
	if len(ev) != 1 || ev[0] != "Normal DeletionHeldByPod Deletion postponed: the claim is used by pod ns/p2" {
		t.Errorf("events %q, want one naming p2 alone", ev)
	}
	if !e.hasFinalizer("data") || e.fresh.calls != 0 {
		t.Fatalf("held: finalizer kept %v, freshness checks %d", e.hasFinalizer("data"), e.fresh.calls)
	}
}

func TestReleaseAfterPodDeletion(t *testing.T) {
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())},
		pods:   []*v1.Pod{newPod("p1", testNode, "data")},
	})
	e.mustSync("data")
	if !e.hasFinalizer("data") {
		t.Fatal("held claim lost its finalizer")
	}
	mustDelete(t, e, "p1")
	e.mustSync("data")
	if e.hasFinalizer("data") {
		t.Fatal("the finalizer must go once the pod is deleted")
	}
	ev := e.Events.Drain()
	if len(ev) != 2 || !strings.HasPrefix(ev[1], "Normal DeletionReleased ") {
		t.Fatalf("events %q, want the hold and then DeletionReleased", ev)
	}
	if got := e.metric("held_claims"); got != 0 {
		t.Errorf("held claims = %v after release", got)
	}
	if got := e.metric("finalizers_removed_total"); got != 1 {
		t.Errorf("finalizers removed = %v", got)
	}
}

func TestReleasedBySomeoneElseEndsTheHold(t *testing.T) {
	claim := newClaim("data", testutil.Deleting())
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, pods: []*v1.Pod{newPod("p1", testNode, "data")}})
	e.mustSync("data")
	gone := claim.DeepCopy()
	gone.Finalizers = nil
	gone.ResourceVersion = "2"
	e.setClaim(gone)
	e.mustSync("data")
	if ev := e.Events.Drain(); len(ev) != 2 || !strings.HasPrefix(ev[1], "Normal DeletionReleased ") {
		t.Errorf("events %q", ev)
	}
	if got := e.metric("held_claims"); got != 0 {
		t.Errorf("held claims = %v", got)
	}
	if len(e.writes()) != 0 {
		t.Error("nothing to write")
	}
}

func TestClaimDeletionForgetsTheHold(t *testing.T) {
	claim := newClaim("data", testutil.Deleting())
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, pods: []*v1.Pod{newPod("p1", testNode, "data")}})
	e.mustSync("data")
	e.ctrl.onClaimDeleted(claim)
	if got := e.metric("held_claims"); got != 0 {
		t.Errorf("held claims = %v after the claim went", got)
	}
	if len(e.ctrl.states) != 0 {
		t.Errorf("states left: %v", e.ctrl.states)
	}
}

// mustDelete removes a pod from the API and the pod cache.
func mustDelete(t *testing.T, e *env, name string) {
	t.Helper()
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS}}
	if err := e.ctrl.pods.Delete(pod); err != nil {
		t.Fatal(err)
	}
	_ = e.Client.CoreV1().Pods(testNS).Delete(context.Background(), name, metav1.DeleteOptions{})
}

func TestRecreatedClaimDoesNotLeakTheHeldCount(t *testing.T) {
	old := newClaim("data", testutil.Deleting())
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{old}, pods: []*v1.Pod{newPod("p1", testNode, "data")}})
	e.mustSync("data")
	// The delete event was missed; a new claim of the same name is held too.
	again := newClaim("data", testutil.Deleting())
	again.UID = "new-uid"
	e.setClaim(again)
	e.mustSync("data")
	if got := e.metric("held_claims"); got != 1 {
		t.Errorf("held claims = %v, want 1", got)
	}
	if ev := e.Events.Drain(); len(ev) != 2 {
		t.Errorf("events %q: the new claim's hold is news", ev)
	}
}

// The claim's deletion reaches the informer, which forgets the hold, before
// the update that removed its last finalizer returns: the release is still
// told.
func TestReleaseIsToldWhenTheDeletionOvertakesTheWrite(t *testing.T) {
	claim := newClaim("data", testutil.Deleting())
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, pods: []*v1.Pod{newPod("p1", testNode, "data")}})
	e.mustSync("data")
	mustDelete(t, e, "p1")
	testutil.BeforeEach(e.Client, func(k8stesting.Action) { e.ctrl.onClaimDeleted(claim) }, claimUpdate...)
	e.mustSync("data")
	ev := e.Events.Drain()
	if len(ev) != 2 || !strings.HasPrefix(ev[1], "Normal DeletionReleased ") {
		t.Fatalf("events %q, want the hold and then DeletionReleased", ev)
	}
	if got := e.metric("held_claims"); got != 0 {
		t.Errorf("held claims = %v after release", got)
	}
}
