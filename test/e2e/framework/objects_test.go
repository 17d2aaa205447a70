package framework

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// The usual class deletes its volumes and binds at once; the usual claim
// asks for one node's writes on a filesystem of its size.
func TestObjects(t *testing.T) {
	sc := NewStorageClass("fast", "mock.csi.example.com")
	if sc.Name != "fast" || sc.Provisioner != "mock.csi.example.com" ||
		*sc.ReclaimPolicy != corev1.PersistentVolumeReclaimDelete || *sc.VolumeBindingMode != storagev1.VolumeBindingImmediate {
		t.Errorf("class %+v", sc)
	}
	pvc := NewClaim("default", "data", "fast", "2Gi")
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if pvc.Namespace != "default" || pvc.Name != "data" || *pvc.Spec.StorageClassName != "fast" || size.String() != "2Gi" ||
		len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != corev1.ReadWriteOnce || pvc.Spec.VolumeMode != nil {
		t.Errorf("claim %+v", pvc)
	}
}
