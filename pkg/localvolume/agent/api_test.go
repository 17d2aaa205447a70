package agent

// The tests' reads and writes of the fake API servers.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// setOwner creates or replaces a LocalVolume or LocalVolumeSet.
func (e *env) setOwner(obj runtime.Object) {
	e.t.Helper()
	var err error
	switch o := obj.(type) {
	case *localv1.LocalVolume:
		err = createOrReplace(e.local.LocalV1().LocalVolumes(o.Namespace), o)
	case *localv1alpha1.LocalVolumeSet:
		err = createOrReplace(e.local.LocalV1alpha1().LocalVolumeSets(o.Namespace), o)
	default:
		e.t.Fatalf("not an owner: %T", obj)
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

// typedClient is the part of a generated typed client that
// createOrReplace uses.
type typedClient[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// createOrReplace creates obj, or replaces the object of its name if there
// is one; obj itself is not changed.
func createOrReplace[T interface {
	metav1.Object
	DeepCopyObject() runtime.Object
}](client typedClient[T], obj T) error {
	ctx := context.Background()
	cur, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		_, err = client.Create(ctx, obj, metav1.CreateOptions{})
		return err
	}
	obj = obj.DeepCopyObject().(T)
	obj.SetResourceVersion(cur.GetResourceVersion())
	_, err = client.Update(ctx, obj, metav1.UpdateOptions{})
	return err
}

func (e *env) pvs() []corev1.PersistentVolume {
	e.t.Helper()
	list, err := e.client.CoreV1().PersistentVolumes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return list.Items
}

func (e *env) pv(name string) (*corev1.PersistentVolume, bool) {
	pv, err := e.client.CoreV1().PersistentVolumes().Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return pv, true
}

func (e *env) mustPV(name string) *corev1.PersistentVolume {
	e.t.Helper()
	pv, ok := e.pv(name)
	if !ok {
		e.t.Fatalf("PV %s not found", name)
	}
	return pv
}

// updatePV changes a PV on the API server (status included: PVs have no
// status subresource rules in the fake).
func (e *env) updatePV(name string, change func(*corev1.PersistentVolume)) {
	e.t.Helper()
	pv := e.mustPV(name)
	change(pv)
	if _, err := e.client.CoreV1().PersistentVolumes().Update(context.Background(), pv, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// release makes a PV Released, as the PV controller does when its claim
// is deleted.
func (e *env) release(name string) {
	e.updatePV(name, func(pv *corev1.PersistentVolume) {
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "app", Name: "data", UID: "uid-pvc"}
		pv.Status.Phase = corev1.VolumeReleased
	})
}

// createPV stores a PV as the agent would have made it, for tests that
// start from an existing volume.
func (e *env) createPV(pv *corev1.PersistentVolume) {
	e.t.Helper()
	if _, err := e.client.CoreV1().PersistentVolumes().Create(context.Background(), pv, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
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

func released(pv *corev1.PersistentVolume) {
	pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "app", Name: "data", UID: "uid-pvc"}
	pv.Status.Phase = corev1.VolumeReleased
}

func annotated(key, value string) func(*corev1.PersistentVolume) {
	return func(pv *corev1.PersistentVolume) { pv.Annotations[key] = value }
}
