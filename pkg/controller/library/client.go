package library

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// Client returns client as the library should get it (the client of
// NewProvisionController): every call passes through unchanged but two. A
// PV patch that leaves the PV without the library's finalizer is noted, so
// that AlreadyDeleted knows the library finished deleting that PV's volume
// and tells a stale copy of the PV from a failed finalizer removal without
// asking the API server. A claim update that sends the claim back to the
// scheduler, made stale by the provisioning-protection finalizer write
// alone, is sent on the version that write made (see reschedule.go). The
// library's events go through events, a client with a rate limit of its
// own (nil: client), so that they never wait behind PV and claim writes;
// they leave as upstream's (see events.go).
func (a *Adapter) Client(client, events kubernetes.Interface) kubernetes.Interface {
	if events == nil {
		events = client
	}
	return libraryClient{Interface: client, events: events, deleted: a.deleted, writes: a.writes, waits: a.waits}
}

type libraryClient struct {
	kubernetes.Interface
	events  kubernetes.Interface
	deleted *deletedVolumes
	writes  *finalizerWrites
	waits   *waitNotes
}

func (c libraryClient) CoreV1() corev1client.CoreV1Interface {
	return libraryCoreV1{CoreV1Interface: c.Interface.CoreV1(), events: c.events.CoreV1(), deleted: c.deleted, writes: c.writes, waits: c.waits}
}

type libraryCoreV1 struct {
	corev1client.CoreV1Interface
	events  corev1client.CoreV1Interface
	deleted *deletedVolumes
	writes  *finalizerWrites
	waits   *waitNotes
}

func (c libraryCoreV1) PersistentVolumeClaims(namespace string) corev1client.PersistentVolumeClaimInterface {
	return libraryClaims{PersistentVolumeClaimInterface: c.CoreV1Interface.PersistentVolumeClaims(namespace), writes: c.writes}
}

type libraryClaims struct {
	corev1client.PersistentVolumeClaimInterface
	writes *finalizerWrites
}

// Update is how the library sends a claim back to the scheduler.
func (c libraryClaims) Update(ctx context.Context, claim *v1.PersistentVolumeClaim, opts metav1.UpdateOptions) (*v1.PersistentVolumeClaim, error) {
	if updated, handled, err := c.rescheduleAfterFinalizerWrite(ctx, claim, opts); handled {
		return updated, err
	}
	return c.PersistentVolumeClaimInterface.Update(ctx, claim, opts)
}

func (c libraryCoreV1) PersistentVolumes() corev1client.PersistentVolumeInterface {
	return libraryVolumes{PersistentVolumeInterface: c.CoreV1Interface.PersistentVolumes(), deleted: c.deleted}
}

// Events is where the library's recorder writes (see libraryEvents).
func (c libraryCoreV1) Events(namespace string) corev1client.EventInterface {
	return libraryEvents{EventInterface: c.events.Events(namespace), waits: c.waits}
}

type libraryVolumes struct {
	corev1client.PersistentVolumeInterface
	deleted *deletedVolumes
}

// Patch is how the library removes its finalizer after the PV's DELETE.
func (v libraryVolumes) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*v1.PersistentVolume, error) {
	pv, err := v.PersistentVolumeInterface.Patch(ctx, name, pt, data, opts, subresources...)
	if err == nil && pv.DeletionTimestamp != nil && !slices.Contains(pv.Finalizers, PVFinalizer) {
		v.deleted.finalized(pv.UID)
	}
	return pv, err
}
