package controller

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// LibraryClient returns client as the provisioning library should get it:
// every call passes through unchanged, and a PV patch that leaves the PV
// without the library's finalizer is noted, so that ShouldDelete knows the
// library finished deleting that PV's volume and tells a stale copy of the
// PV from a failed finalizer removal without asking the API server.
func (p *Provisioner) LibraryClient(client kubernetes.Interface) kubernetes.Interface {
	return libraryClient{Interface: client, deleted: p.deleted}
}

type libraryClient struct {
	kubernetes.Interface
	deleted *deletedVolumes
}

func (c libraryClient) CoreV1() corev1client.CoreV1Interface {
	return libraryCoreV1{CoreV1Interface: c.Interface.CoreV1(), deleted: c.deleted}
}

type libraryCoreV1 struct {
	corev1client.CoreV1Interface
	deleted *deletedVolumes
}

func (c libraryCoreV1) PersistentVolumes() corev1client.PersistentVolumeInterface {
	return libraryVolumes{PersistentVolumeInterface: c.CoreV1Interface.PersistentVolumes(), deleted: c.deleted}
}

type libraryVolumes struct {
	corev1client.PersistentVolumeInterface
	deleted *deletedVolumes
}

// Patch is how the library removes its finalizer after the PV's DELETE.
func (v libraryVolumes) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*v1.PersistentVolume, error) {
	pv, err := v.PersistentVolumeInterface.Patch(ctx, name, pt, data, opts, subresources...)
	if err == nil && pv.DeletionTimestamp != nil && !slices.Contains(pv.Finalizers, libraryPVFinalizer) {
		v.deleted.finalized(pv.UID)
	}
	return pv, err
}
