package library

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
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
	return testutil.NewClaim(testNamespace, name, testutil.WithUID(testClaimUID), testutil.WithResourceVersion("1"),
		testutil.WithAnnotation("volume.kubernetes.io/storage-provisioner", testDriver),
		testutil.WithClass(testClass), testutil.WithClaimPhase(v1.ClaimPending))
}

// newClass is testClass of testDriver, with Immediate binding.
func newClass() *storagev1.StorageClass {
	return testutil.NewClass(testClass, testDriver)
}

// releasedVolume is a Released PV of testDriver that the library
// provisioned, with reclaim policy Delete; opts change the rest.
func releasedVolume(name string, opts ...testutil.VolumeOption) *v1.PersistentVolume {
	return testutil.NewPV(name, append([]testutil.VolumeOption{
		testutil.WithUID("9a0c6b8e-0000-4000-8000-00000000000a"),
		testutil.WithAnnotation("pv.kubernetes.io/provisioned-by", testDriver),
		testutil.WithClass(testClass), testutil.WithCSI(testDriver, "handle-1"),
		testutil.ReleasedFrom(testNamespace, "db", ""),
	}, opts...)...)
}
