package testutil

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestTypedClientHelpers(t *testing.T) {
	client := NewClientsetWithOptions(APIServerOptions{StatusSubresources: []string{"persistentvolumeclaims"}})
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	created := Create(t, claims, NewClaim("apps", "db", WithFinalizers("keep")))
	if created.ResourceVersion == "" {
		t.Fatal("created without a version")
	}
	updated := Update(t, claims, "db", func(c *v1.PersistentVolumeClaim) { c.Labels = map[string]string{"a": "b"} })
	if updated.Labels["a"] != "b" || updated.ResourceVersion == created.ResourceVersion {
		t.Errorf("updated %+v", updated.ObjectMeta)
	}
	UpdateStatus(t, claims, "db", func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimBound })
	if got := Get(t, claims, "db"); got.Status.Phase != v1.ClaimBound || got.Labels["a"] != "b" {
		t.Errorf("after the status update %+v", got)
	}

	replaced := CreateOrReplace(t, claims, NewClaim("apps", "db", WithFinalizers("keep"), WithLabel("c", "d")))
	if replaced.Labels["c"] != "d" || replaced.Labels["a"] != "" {
		t.Errorf("replaced %+v", replaced.ObjectMeta)
	}
	CreateOrReplace(t, claims, NewClaim("apps", "logs"))
	if _, ok := Find(t, claims, "logs"); !ok {
		t.Error("CreateOrReplace did not create logs")
	}

	Delete(t, claims, "db")
	if got, ok := Find(t, claims, "db"); !ok || got.DeletionTimestamp == nil {
		t.Errorf("after a delete, with a finalizer: %v, %v", got, ok)
	}
	Update(t, claims, "db", func(c *v1.PersistentVolumeClaim) { c.Finalizers = nil })
	if _, ok := Find(t, claims, "db"); ok {
		t.Error("the claim is still there without its finalizer")
	}
}

func TestPVAndUpdatePV(t *testing.T) {
	client := NewClientset(NewPV("pv"))
	UpdatePV(t, client, "pv", func(pv *v1.PersistentVolume) { pv.Labels = map[string]string{"a": "b"} })
	if got := PV(t, client, "pv"); got.Labels["a"] != "b" {
		t.Errorf("got %+v", got.ObjectMeta)
	}
}
