package main

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestStripManagedFields(t *testing.T) {
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name:          "data",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}}
	out, err := stripManagedFields(claim)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*v1.PersistentVolumeClaim); got.ManagedFields != nil || got.Name != "data" {
		t.Errorf("got %+v", got.ObjectMeta)
	}

	// Tombstones and other non-objects pass through untouched.
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/data", Obj: claim}
	if out, err := stripManagedFields(tombstone); err != nil || out != tombstone {
		t.Errorf("tombstone changed: %v, %v", out, err)
	}
}
