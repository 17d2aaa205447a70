package testutil

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
)

func TestAddToFillsTheCacheOfAnInformerThatDoesNotRun(t *testing.T) {
	claims := informers.NewSharedInformerFactory(NewClientset(), 0).Core().V1().PersistentVolumeClaims()
	AddTo(t, claims.Informer().GetStore(), NewClaim("apps", "db"), NewClaim("apps", "logs"))
	if got, err := claims.Lister().PersistentVolumeClaims("apps").Get("logs"); err != nil || got.Name != "logs" {
		t.Errorf("the lister reads %v, %v", got, err)
	}
}

// WaitCurrent follows the API server: a write, then a delete.
func TestWaitCurrentFollowsTheAPIServer(t *testing.T) {
	ctx, _ := LoggingContext(t, 0)
	client := NewClientset(NewClaim("apps", "db"))
	factory := informers.NewSharedInformerFactory(client, 0)
	store := factory.Core().V1().PersistentVolumeClaims().Informer().GetStore()
	StartInformers(t, ctx, factory)
	claims := client.CoreV1().PersistentVolumeClaims("apps")

	written := Update(t, claims, "db", func(c *v1.PersistentVolumeClaim) { c.Labels = map[string]string{"a": "b"} })
	WaitCurrent(t, 5*time.Second, store, claims, "apps", "db")
	if obj, _, _ := store.GetByKey("apps/db"); obj.(*v1.PersistentVolumeClaim).ResourceVersion != written.ResourceVersion {
		t.Errorf("the cache holds %+v, want version %s", obj, written.ResourceVersion)
	}

	Delete(t, claims, "db")
	WaitCurrent(t, 5*time.Second, store, claims, "apps", "db")
	if _, ok, _ := store.GetByKey("apps/db"); ok {
		t.Error("the cache still holds the deleted claim")
	}
}
