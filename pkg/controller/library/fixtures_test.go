package library

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const (
	testDriver    = "test.csi-protect.io"
	testClass     = "fast"
	testNamespace = "apps"
	testClaimUID  = "0b6d5fa4-54c3-4c4e-8c8a-7d1c3f0e9a21"
)

// newClaim is a claim of testClass that the PV controller handed to
// testDriver.
func newClaim(name string) *v1.PersistentVolumeClaim {
	class := testClass
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: testNamespace, UID: types.UID(testClaimUID), ResourceVersion: "1",
			Annotations: map[string]string{"volume.kubernetes.io/storage-provisioner": testDriver},
		},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &class,
			Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceStorage: resource.MustParse("1Gi"),
			}},
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
}

// newClass is testClass of testDriver, with Immediate binding.
func newClass() *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: testClass}, Provisioner: testDriver}
}

// releasedVolume is a Released PV of testDriver that the library
// provisioned, with reclaim policy Delete.
func releasedVolume(name string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: "9a0c6b8e-0000-4000-8000-00000000000a",
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": testDriver},
		},
		Spec: v1.PersistentVolumeSpec{
			StorageClassName:              testClass,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource:        v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: testDriver, VolumeHandle: "handle-1"}},
			ClaimRef:                      &v1.ObjectReference{Namespace: testNamespace, Name: "db"},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeReleased},
	}
}
