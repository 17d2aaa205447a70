package testutil

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
)

func TestActionsKeepWhatEveryFilterKeeps(t *testing.T) {
	ctx := context.Background()
	client := NewClientset(NewClaim("apps", "db"), NewPV("pv"))
	client.ClearActions()
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	_, _ = claims.Get(ctx, "db", metav1.GetOptions{})
	_, _ = claims.Patch(ctx, "db", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
	_, _ = claims.Patch(ctx, "db", types.MergePatchType, []byte(`{"status":{"phase":"Bound"}}`), metav1.PatchOptions{}, "status")
	_ = client.CoreV1().PersistentVolumes().Delete(ctx, "pv", metav1.DeleteOptions{})

	if got := Actions(client.Actions(), Writes); len(got) != 3 {
		t.Errorf("writes %v, want the patches and the delete", got)
	}
	if got := Actions(client.Actions(), Writes, On("persistentvolumes")); len(got) != 1 || got[0].GetVerb() != "delete" {
		t.Errorf("writes of PVs %v", got)
	}
	if got := Patches(client.Actions(), On("persistentvolumeclaims"), OnSubresource("status")); len(got) != 1 || got[0].GetName() != "db" {
		t.Errorf("status patches %v", got)
	}
	if got := Patches(client.Actions(), OnSubresource("")); len(got) != 1 {
		t.Errorf("patches of objects %v", got)
	}
	if got := Actions(client.Actions(), Verb("get")); len(got) != 1 {
		t.Errorf("reads %v", got)
	}
	if got := Actions(client.Actions(), Named("db"), Verb("get", "patch")); len(got) != 3 {
		t.Errorf("reads and patches of db %v", got)
	}
	Create(t, claims, NewClaim("apps", "logs"))
	if got := Actions(client.Actions(), Named("logs")); len(got) != 1 || got[0].GetVerb() != "create" {
		t.Errorf("requests for logs %v, want its create", got)
	}
}

func TestFailNextFailsSomeRequestsThenLetsThemThrough(t *testing.T) {
	ctx := context.Background()
	client := NewClientset(NewClaim("apps", "db"))
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	conflict := apierrors.NewConflict(v1.Resource("persistentvolumeclaims"), "db", nil)
	FailNext(client, 1, conflict, Verb("update"), On("persistentvolumeclaims"))
	c, _ := claims.Get(ctx, "db", metav1.GetOptions{})
	if _, err := claims.Update(ctx, c, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("first update: %v, want the conflict", err)
	}
	if _, err := claims.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Errorf("second update: %v", err)
	}

	FailNext(client, -1, conflict, Verb("delete"))
	for range 2 {
		if err := claims.Delete(ctx, "db", metav1.DeleteOptions{}); !apierrors.IsConflict(err) {
			t.Errorf("delete: %v, want every one failed", err)
		}
	}
}

// BeforeEach lands another writer's change, through the tracker, before
// the request: a pinned write then conflicts.
func TestBeforeEachRunsBeforeTheServerAnswers(t *testing.T) {
	ctx := context.Background()
	client := NewClientset(NewClaim("apps", "db"))
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	gvr := v1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	BeforeEach(client, func(k8stesting.Action) {
		obj, _ := client.Tracker().Get(gvr, "apps", "db")
		c := obj.(*v1.PersistentVolumeClaim).DeepCopy()
		c.ResourceVersion = "changed-" + c.ResourceVersion
		if err := client.Tracker().Update(gvr, c, "apps"); err != nil {
			t.Error(err)
		}
	}, Verb("update"))
	c, _ := claims.Get(ctx, "db", metav1.GetOptions{})
	if _, err := claims.Update(ctx, c, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update after another writer's: %v, want a conflict", err)
	}
}

func TestBeforeNextRunsOnce(t *testing.T) {
	client := NewClientset(NewClaim("apps", "db"))
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	runs := 0
	BeforeNext(client, func(k8stesting.Action) { runs++ }, Verb("get"))
	Get(t, claims, "db")
	Get(t, claims, "db")
	if runs != 1 {
		t.Errorf("ran %d times, want once", runs)
	}
}
