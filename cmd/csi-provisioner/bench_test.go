package main

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// benchManagedFields are what a claim or a PV typically carries: an entry
// per writer, each with the JSON of the fields it owns.
func benchManagedFields() []metav1.ManagedFieldsEntry {
	entry := func(manager, subresource, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{
			Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Subresource: subresource, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)},
		}
	}
	return []metav1.ManagedFieldsEntry{
		entry("kubectl-client-side-apply", "", `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},"f:spec":{"f:accessModes":{},"f:resources":{"f:requests":{".":{},"f:storage":{}}},"f:storageClassName":{},"f:volumeMode":{}}}`),
		entry("kube-controller-manager", "", `{"f:metadata":{"f:annotations":{"f:pv.kubernetes.io/bind-completed":{},"f:volume.kubernetes.io/storage-provisioner":{}}},"f:spec":{"f:volumeName":{}}}`),
		entry("kube-controller-manager", "status", `{"f:status":{"f:accessModes":{},"f:capacity":{".":{},"f:storage":{}},"f:phase":{}}}`),
		entry("csi-provisioner", "", `{"f:metadata":{"f:finalizers":{"v:\"provisioner.storage.kubernetes.io/provisioning-protection\"":{}}}}`),
	}
}

// BenchmarkTrimForCache measures the informer transform every claim and PV
// event goes through before it enters the shared caches. The transform
// strips in place, so each round puts the managed fields back first.
func BenchmarkTrimForCache(b *testing.B) {
	mf := benchManagedFields()
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "apps", ManagedFields: mf}}
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-1234", ManagedFields: mf}}
	for _, bc := range []struct {
		name string
		obj  runtime.Object
		meta *metav1.ObjectMeta
	}{
		{"claim", claim, &claim.ObjectMeta},
		{"pv", pv, &pv.ObjectMeta},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if out, err := trimForCache(bc.obj); err != nil || out != bc.obj || bc.meta.ManagedFields != nil {
				b.Fatalf("trimForCache kept managed fields or changed the object: %v, %v", bc.meta.ManagedFields, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				bc.meta.ManagedFields = mf
				if _, err := trimForCache(bc.obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
