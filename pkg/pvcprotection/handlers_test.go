package pvcprotection

import (
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

func TestPodEventsRequeueTheirClaims(t *testing.T) {
	ephPod, ephClaim := ephemeralPod("web", "cache", true, testutil.Deleting())
	claims := []*v1.PersistentVolumeClaim{
		newClaim("a", testutil.Deleting()), newClaim("b", testutil.Deleting()), ephClaim,
		newClaim("live"), // not being deleted: a pod event cannot matter
	}
	noFinalizer := newClaim("done", testutil.Deleting())
	noFinalizer.Finalizers = nil
	claims = append(claims, noFinalizer)

	running := newPod("p", testNode, "a", "b", "live", "done", "absent")
	terminated := running.DeepCopy()
	terminated.Status.Phase = v1.PodSucceeded
	terminating := running.DeepCopy()
	terminating.DeletionTimestamp = ptr.To(metav1.Now())
	unscheduled := newPod("p", "", "a", "b")
	ephShutDown := ephPod.DeepCopy()
	ephShutDown.DeletionTimestamp = ptr.To(metav1.Now())
	ephShutDown.DeletionGracePeriodSeconds = ptr.To[int64](0)
	replacement := newPod("p", testNode, "b")
	replacement.UID = "new-uid"

	tests := []struct {
		name     string
		old, obj interface{}
		deleted  bool
		want     []string
	}{
		{"added running pod", nil, running, false, nil},
		{"updated running pod", running, running, false, nil},
		{"deleted pod", nil, running, true, []string{"ns/a", "ns/b"}},
		{"deleted pod in a tombstone", nil, cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: running}, true, []string{"ns/a", "ns/b"}},
		{"terminated pod", running, terminated, false, []string{"ns/a", "ns/b"}},
		{"terminating pod", running, terminating, false, []string{"ns/a", "ns/b"}},
		{"unscheduled pod", nil, unscheduled, false, []string{"ns/a", "ns/b"}},
		{"shut-down pod with an ephemeral volume", ephPod, ephShutDown, false, []string{"ns/web-cache"}},
		{"pod replaced under the same name", running, replacement, false, []string{"ns/a", "ns/b"}},
		{"not a pod", nil, "junk", true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, setup{claims: claims})
			e.ctrl.onPod(tc.old, tc.obj, tc.deleted)
			got := e.queued()
			sort.Strings(got)
			if len(got) != len(tc.want) {
				t.Fatalf("queued %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("queued %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestClaimEvents(t *testing.T) {
	other := newClaim("other", testutil.Deleting())
	other.Annotations[driverscope.AnnStorageProvisioner] = "other.example.com"
	missing := newClaim("missing")
	missing.Finalizers = nil
	released := newClaim("released", testutil.Deleting())
	released.Finalizers = nil
	tests := []struct {
		claim *v1.PersistentVolumeClaim
		want  bool
	}{
		{newClaim("deleting", testutil.Deleting()), true},
		{missing, true},
		{newClaim("protected"), false},
		{released, false},
		{other, false},
	}
	for _, tc := range tests {
		e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{tc.claim}})
		e.ctrl.onClaim(tc.claim)
		if got := len(e.queued()) == 1; got != tc.want {
			t.Errorf("%s: queued %v, want %v", tc.claim.Name, got, tc.want)
		}
	}
	// A tombstone of a deleted claim clears its state.
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("x", testutil.Deleting())}, pods: []*v1.Pod{newPod("p", testNode, "x")}})
	e.mustSync("x")
	reconcile.Handler(nil, e.ctrl.onClaimDeleted).OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: newClaim("x", testutil.Deleting())})
	if e.ctrl.hasState(key("x")) {
		t.Error("the tombstone of a claim must clear its state")
	}
}

func TestSeenDeletingIsKeptAcrossSyncs(t *testing.T) {
	claim := newClaim("data", testutil.Deleting())
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, pods: []*v1.Pod{newPod("p", testNode, "data")}})
	first := e.ctrl.seenDeleting(claim)
	e.clock.Step(1000)
	e.mustSync("data")
	if got := e.ctrl.seenDeleting(claim); got != first {
		t.Errorf("seen moved from %v to %v: it must stay when this process first saw the deletion", first, got)
	}
	// A new claim of the same name is seen afresh.
	again := newClaim("data", testutil.Deleting())
	again.UID = "other"
	if got := e.ctrl.seenDeleting(again); !first.before(got) {
		t.Errorf("a recreated claim kept the old moment")
	}
}
