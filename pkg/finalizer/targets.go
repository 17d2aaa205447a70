package finalizer

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// PersistentVolumes writes to PersistentVolumes with a pinned merge patch
// (upstream external-provisioner's ClusterRole grants patch on them).
func PersistentVolumes(client kubernetes.Interface) Target {
	return Func("PersistentVolume", func(ctx context.Context, _, name string, p []byte) error {
		_, err := client.CoreV1().PersistentVolumes().Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
		return err
	})
}

// PersistentVolumeClaims writes to PersistentVolumeClaims with a pinned
// update: upstream external-provisioner's ClusterRole grants update on
// claims but not patch, and a swap of its image for ours must work under it.
func PersistentVolumeClaims(client kubernetes.Interface) Target {
	return PersistentVolumeClaimsReporting(client, nil)
}

// PersistentVolumeClaimsReporting is PersistentVolumeClaims that also hands
// written, if set, each claim as the API server stored it, with the version
// the write was pinned to: a complete copy, for a caller that writes the
// claim again.
func PersistentVolumeClaimsReporting(client kubernetes.Interface, written func(from string, stored *v1.PersistentVolumeClaim)) Target {
	return Update("PersistentVolumeClaim", func(ctx context.Context, claim *v1.PersistentVolumeClaim) error {
		stored, err := client.CoreV1().PersistentVolumeClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{})
		if err == nil && written != nil {
			written(claim.ResourceVersion, stored)
		}
		return err
	})
}

// Resource writes to the objects of a resource through a dynamic client,
// for kinds without a typed client.
func Resource(client dynamic.Interface, gvr schema.GroupVersionResource, kind string) Target {
	return Func(kind, func(ctx context.Context, namespace, name string, p []byte) error {
		_, err := client.Resource(gvr).Namespace(namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
		return err
	})
}

// Func makes a Target that sends a merge patch through the patch function,
// for typed clients of other kinds.
func Func(kind string, patch func(ctx context.Context, namespace, name string, p []byte) error) Target {
	return patchTarget{kind: kind, patch: patch}
}

// Object is a typed API object: its metadata, and a deep copy to change.
type Object interface {
	metav1.Object
	runtime.Object
}

// Update makes a Target that writes a changed copy of the object with the
// update function. The copy keeps the object's resourceVersion and UID, so
// the API server refuses it, as it refuses a pinned patch, when the object
// changed since.
func Update[T Object](kind string, update func(ctx context.Context, obj T) error) Target {
	return updateTarget[T]{kind: kind, update: update}
}

type patchTarget struct {
	kind  string
	patch func(ctx context.Context, namespace, name string, p []byte) error
}

func (t patchTarget) Kind() string { return t.kind }

func (t patchTarget) Write(ctx context.Context, obj metav1.Object, c Change) error {
	p, err := Patch(obj, c)
	if err != nil || p == nil {
		return err
	}
	return rbacHint("patch", t.kind, t.patch(ctx, obj.GetNamespace(), obj.GetName(), p))
}

type updateTarget[T Object] struct {
	kind   string
	update func(ctx context.Context, obj T) error
}

func (t updateTarget[T]) Kind() string { return t.kind }

func (t updateTarget[T]) Write(ctx context.Context, obj metav1.Object, c Change) error {
	typed, ok := obj.(T)
	if !ok {
		return fmt.Errorf("cannot update a %T as a %s", obj, t.kind)
	}
	if len(c.Spec) > 0 || len(c.Status) > 0 {
		return fmt.Errorf("a change of a %s's spec or status is sent as a patch, not an update", t.kind)
	}
	// The caller's copy is often the informer's: never change it.
	changed, ok := typed.DeepCopyObject().(T)
	if !ok {
		return fmt.Errorf("a copy of %s %s is a %T", t.kind, obj.GetName(), changed)
	}
	if !Apply(changed, c) {
		return nil
	}
	return rbacHint("update", t.kind, t.update(ctx, changed))
}

// rbacHint names the missing rule of a Forbidden answer, the usual cause on
// a fresh install.
func rbacHint(verb, kind string, err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("the RBAC rules must allow %s on %s: %w", verb, kind, err)
	}
	return err
}
