package library

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The provisioner's side of the reschedule (its finalizer write, forgotten
// when Provision does not reschedule, and a superseded copy not
// provisioned) is tested with it, in pkg/controller/reschedule_test.go.

// rescheduleEnv is a claim the scheduler placed, on an API server with
// real write semantics, and the library's cached copy of it.
type rescheduleEnv struct {
	adapter *Adapter
	server  *fake.Clientset
	// cached is the claim as the library's cache holds it.
	cached *v1.PersistentVolumeClaim
}

func newRescheduleEnv(t *testing.T) *rescheduleEnv {
	t.Helper()
	claim, _ := scheduledClaim("node-1")
	claim.Annotations["team"] = "db"
	// A claim's status is a subresource: an update of the claim leaves it.
	server := testutil.NewClientsetWithOptions(testutil.APIServerOptions{StatusSubresources: []string{"persistentvolumeclaims"}}, claim)
	r := &rescheduleEnv{adapter: New(Options{Client: server}), server: server}
	// As the claim cache holds it: no managedFields.
	r.cached = r.apiClaim(t)
	r.cached.ManagedFields = nil
	return r
}

func (r *rescheduleEnv) apiClaim(t *testing.T) *v1.PersistentVolumeClaim {
	t.Helper()
	return testutil.Get(t, r.server.CoreV1().PersistentVolumeClaims(testNamespace), "db")
}

// writeFinalizer is the provisioner's finalizer write before CreateVolume,
// pinned to the cached version, and its record for the reschedule.
func (r *rescheduleEnv) writeFinalizer(t *testing.T) {
	t.Helper()
	claim := r.cached.DeepCopy()
	claim.Finalizers = append(claim.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
	stored, err := r.server.CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), claim, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.adapter.FinalizerWritten(FinalizerWrite{From: r.cached.ResourceVersion, Claim: stored})
}

// libraryReschedule does what the library's rescheduleProvisioning does:
// update its cached copy without the selected-node annotation.
func (r *rescheduleEnv) libraryReschedule() (*v1.PersistentVolumeClaim, error) {
	sent := r.cached.DeepCopy()
	delete(sent.Annotations, provisionstate.AnnSelectedNode)
	_, err := r.adapter.Client(r.server, nil).CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), sent, metav1.UpdateOptions{})
	return sent, err
}

func TestTheLibrarysRescheduleIsRedoneOnTheFinalizerWritesVersion(t *testing.T) {
	r := newRescheduleEnv(t)
	r.writeFinalizer(t)
	sent, err := r.libraryReschedule()
	if err != nil {
		t.Fatalf("the library's reschedule failed (%v): it would provision the claim again", err)
	}
	live := r.apiClaim(t)
	if _, selected := live.Annotations[provisionstate.AnnSelectedNode]; selected {
		t.Fatal("the selected-node annotation is still on the claim")
	}
	if !finalizer.Has(live, provisionstate.ProvisioningProtectionFinalizer) || live.Annotations["team"] != "db" {
		t.Fatalf("the reschedule lost more than the selected node: %v %v", live.Finalizers, live.Annotations)
	}
	// What the library stores in its cache is the server's copy.
	if sent.ResourceVersion != live.ResourceVersion || !finalizer.Has(sent, provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatalf("the library would cache version %s with finalizers %v; the server has %s", sent.ResourceVersion, sent.Finalizers, live.ResourceVersion)
	}
	if n := r.adapter.writes.len(); n != 0 {
		t.Fatalf("%d finalizer writes kept after the reschedule used its own", n)
	}
}

// The version the finalizer write made, which the reschedule replaced, is
// superseded until the cache shows another version of the claim.
func TestACopyOlderThanTheRescheduleIsSuperseded(t *testing.T) {
	r := newRescheduleEnv(t)
	r.writeFinalizer(t)
	stale := r.apiClaim(t)
	if _, err := r.libraryReschedule(); err != nil {
		t.Fatal(err)
	}
	if !r.adapter.Superseded(stale) {
		t.Fatal("a copy older than the reschedule is not superseded")
	}
	next := r.apiClaim(t)
	if r.adapter.Superseded(next) {
		t.Fatal("the rescheduled version is superseded")
	}
	if r.adapter.Superseded(stale) {
		t.Fatal("the superseded version is remembered after a newer one was seen")
	}
}

func TestTheRedoConflictsWhenTheClaimChangedAfterTheFinalizerWrite(t *testing.T) {
	r := newRescheduleEnv(t)
	r.writeFinalizer(t)
	changed := r.apiClaim(t)
	changed.Labels = map[string]string{"app": "db"}
	if _, err := r.server.CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.libraryReschedule(); !apierrors.IsConflict(err) {
		t.Fatalf("err %v, want a conflict: the claim changed after our write", err)
	}
	live := r.apiClaim(t)
	if _, selected := live.Annotations[provisionstate.AnnSelectedNode]; !selected || live.Labels["app"] != "db" {
		t.Fatalf("a conflicting reschedule changed the claim: %v %v", live.Annotations, live.Labels)
	}
}

func TestAForgottenFinalizerWriteIsNotRedone(t *testing.T) {
	r := newRescheduleEnv(t)
	r.writeFinalizer(t)
	r.adapter.ForgetFinalizerWrite(r.cached.UID)
	if n := r.adapter.writes.len(); n != 0 {
		t.Fatalf("%d finalizer writes kept after it was forgotten", n)
	}
	// An update of the stale copy is left to conflict, as any other.
	if _, err := r.libraryReschedule(); !apierrors.IsConflict(err) {
		t.Fatalf("err %v, want the conflict of a stale copy", err)
	}
}

// Only the library's reschedule of the copy our write started from is
// redone: any other update of a claim is sent as it is.
func TestOnlyTheLibrarysRescheduleOfOurWritesCopyIsRedone(t *testing.T) {
	for name, tc := range map[string]struct {
		write  func(*FinalizerWrite)
		update func(*v1.PersistentVolumeClaim)
	}{
		"a copy older than the one the write started from": {
			write: func(w *FinalizerWrite) { w.From = "older" },
		},
		"an update that keeps the selected node": {
			update: func(c *v1.PersistentVolumeClaim) { c.Annotations[provisionstate.AnnSelectedNode] = "node-1" },
		},
		"a write of a claim with no selected node": {
			write: func(w *FinalizerWrite) { delete(w.Claim.Annotations, provisionstate.AnnSelectedNode) },
		},
	} {
		r := newRescheduleEnv(t)
		r.writeFinalizer(t)
		if tc.write != nil {
			w, _ := r.adapter.writes.take(r.cached.UID)
			tc.write(&w)
			r.adapter.FinalizerWritten(w)
		}
		sent := r.cached.DeepCopy()
		delete(sent.Annotations, provisionstate.AnnSelectedNode)
		if tc.update != nil {
			tc.update(sent)
		}
		_, err := r.adapter.Client(r.server, nil).CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), sent, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			t.Errorf("%s: err %v, want the update sent as it is, and its conflict", name, err)
		}
	}
}
