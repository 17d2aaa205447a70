package agent

// The tests' reads and writes of the fake API servers.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// setOwner creates or replaces a LocalVolume or LocalVolumeSet.
func (e *env) setOwner(obj runtime.Object) {
	e.t.Helper()
	switch o := obj.(type) {
	case *localv1.LocalVolume:
		testutil.CreateOrReplace(e.t, e.local.LocalV1().LocalVolumes(o.Namespace), o)
	case *localv1alpha1.LocalVolumeSet:
		testutil.CreateOrReplace(e.t, e.local.LocalV1alpha1().LocalVolumeSets(o.Namespace), o)
	default:
		e.t.Fatalf("not an owner: %T", obj)
	}
}

func (e *env) pvs() []corev1.PersistentVolume {
	e.t.Helper()
	list, err := e.Client.CoreV1().PersistentVolumes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return list.Items
}

func (e *env) pv(name string) (*corev1.PersistentVolume, bool) {
	e.t.Helper()
	return testutil.Find(e.t, e.Client.CoreV1().PersistentVolumes(), name)
}

func (e *env) mustPV(name string) *corev1.PersistentVolume {
	e.t.Helper()
	return testutil.Get(e.t, e.Client.CoreV1().PersistentVolumes(), name)
}

// updatePV changes a PV on the API server (status included: PVs have no
// status subresource rules in the fake).
func (e *env) updatePV(name string, change func(*corev1.PersistentVolume)) {
	e.t.Helper()
	testutil.UpdatePV(e.t, e.Client, name, change)
}

// release makes a PV Released, as the PV controller does when its claim
// is deleted.
func (e *env) release(name string) { e.updatePV(name, released) }

// createPV stores a PV as the agent would have made it, for tests that
// start from an existing volume.
func (e *env) createPV(pv *corev1.PersistentVolume) {
	e.t.Helper()
	testutil.Create(e.t, e.Client.CoreV1().PersistentVolumes(), pv)
}

// agentPV is the PV the agent makes for device id (a by-id name) of an
// owner, with its symlink on the host.
func (e *env) agentPV(kind, owner, storageClass, kname, id string, mods ...func(*corev1.PersistentVolume)) *corev1.PersistentVolume {
	e.t.Helper()
	if err := devices.EnsureSymlink(e.host.fs, testRoot, storageClass, id, "/dev/disk/by-id/"+id); err != nil {
		e.t.Fatal(err)
	}
	path := testRoot + "/" + storageClass + "/" + id
	mode := corev1.PersistentVolumeFilesystem
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name: PVName(testNode, path),
			Labels: map[string]string{
				local.OwnerKindLabel: kind, local.OwnerNameLabel: owner, local.OwnerNamespaceLabel: testNS,
				local.NodeLabel: testHostname,
			},
			Annotations: map[string]string{AnnotationDeviceKernelPath: kname, AnnotationDeviceStableName: "/dev/disk/by-id/" + id},
			Finalizers:  []string{local.SymlinkDeleterFinalizer},
		},
		Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: path}},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              storageClass,
			VolumeMode:                    &mode,
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
	}
	for _, m := range mods {
		m(pv)
	}
	return pv
}

// released is a PV whose claim app/data was deleted.
var released = testutil.ReleasedFrom("app", "data", "uid-pvc")

func annotated(key, value string) func(*corev1.PersistentVolume) {
	return func(pv *corev1.PersistentVolume) { pv.Annotations[key] = value }
}
