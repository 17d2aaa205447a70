package finalizer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func storedClaim(t *testing.T, finalizers ...string) (*v1.PersistentVolumeClaim, Target, func() *v1.PersistentVolumeClaim) {
	t.Helper()
	client := testutil.NewClientset(&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: "claim", Namespace: "ns", Finalizers: finalizers, Annotations: map[string]string{"kept": "yes"},
	}})
	get := func() *v1.PersistentVolumeClaim {
		claim, err := client.CoreV1().PersistentVolumeClaims("ns").Get(context.Background(), "claim", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return claim
	}
	// Every write to claims must be an update: upstream's ClusterRole
	// grants no patch on them.
	client.PrependReactor("patch", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
		t.Error("a claim was patched")
		return true, nil, errors.New("patch is not granted on claims")
	})
	return get(), PersistentVolumeClaims(client), get
}

func TestClaimFinalizerIsAddedByUpdateKeepingTheRest(t *testing.T) {
	claim, to, get := storedClaim(t, "other")
	wrote, err := Add(context.Background(), to, claim, "mine", WithAnnotation("marker", "on"))
	if err != nil || !wrote {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
	got := get()
	if !slices.Equal(got.Finalizers, []string{"other", "mine"}) {
		t.Errorf("finalizers: %v", got.Finalizers)
	}
	if got.Annotations["kept"] != "yes" || got.Annotations["marker"] != "on" {
		t.Errorf("annotations: %v", got.Annotations)
	}
	if slices.Contains(claim.Finalizers, "mine") || claim.Annotations["marker"] != "" {
		t.Errorf("the caller's copy was changed: %v %v", claim.Finalizers, claim.Annotations)
	}
}

func TestClaimUpdateFromAStaleVersionConflicts(t *testing.T) {
	stale, to, get := storedClaim(t, "mine")
	if _, err := Write(context.Background(), to, get(), Change{SetAnnotations: map[string]string{"someone": "else"}}); err != nil {
		t.Fatal(err)
	}
	// Removing the finalizer from the version before that change must fail,
	// as a pinned patch would.
	_, err := Remove(context.Background(), to, stale, "mine")
	if !apierrors.IsConflict(err) {
		t.Fatalf("got %v, want a conflict", err)
	}
	if !slices.Contains(get().Finalizers, "mine") {
		t.Error("the finalizer went on a stale write")
	}
}

func TestClaimRemovalOfTheLastFinalizerAndAnnotation(t *testing.T) {
	claim, to, get := storedClaim(t, "mine")
	if _, err := Remove(context.Background(), to, claim, "mine", WithoutAnnotation("kept")); err != nil {
		t.Fatal(err)
	}
	got := get()
	if len(got.Finalizers) != 0 {
		t.Errorf("finalizers: %v", got.Finalizers)
	}
	if _, ok := got.Annotations["kept"]; ok {
		t.Errorf("annotation kept: %v", got.Annotations)
	}
}

func TestUpdateWritesNothingWithoutAChange(t *testing.T) {
	calls := 0
	to := Update("PersistentVolumeClaim", func(context.Context, *v1.PersistentVolumeClaim) error { calls++; return nil })
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1", Finalizers: []string{"mine"}}}
	if wrote, err := Add(context.Background(), to, claim, "mine"); wrote || err != nil || calls != 0 {
		t.Errorf("wrote %v, err %v, calls %d", wrote, err, calls)
	}
}

func TestUpdateRefusesAnObjectOfAnotherKind(t *testing.T) {
	to := Update("PersistentVolumeClaim", func(context.Context, *v1.PersistentVolumeClaim) error { return nil })
	if _, err := Add(context.Background(), to, &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", ResourceVersion: "1"}}, "mine"); err == nil {
		t.Error("a PV was written as a claim")
	}
}

func TestForbiddenUpdateNamesTheMissingRule(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "c", errors.New("no"))
	to := Update("PersistentVolumeClaim", func(context.Context, *v1.PersistentVolumeClaim) error { return forbidden })
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"}}
	_, err := Add(context.Background(), to, claim, "mine")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "must allow update on PersistentVolumeClaim") {
		t.Errorf("got %v", err)
	}
}
