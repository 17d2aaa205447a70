package finalizer

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// PersistentVolumes writes to PersistentVolumes.
func PersistentVolumes(client kubernetes.Interface) Target {
	return target{kind: "PersistentVolume", patch: func(ctx context.Context, _, name string, p []byte) error {
		_, err := client.CoreV1().PersistentVolumes().Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
		return err
	}}
}

// PersistentVolumeClaims writes to PersistentVolumeClaims.
func PersistentVolumeClaims(client kubernetes.Interface) Target {
	return target{kind: "PersistentVolumeClaim", patch: func(ctx context.Context, namespace, name string, p []byte) error {
		_, err := client.CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
		return err
	}}
}

// Resource writes to the objects of a resource through a dynamic client,
// for kinds without a typed client.
func Resource(client dynamic.Interface, gvr schema.GroupVersionResource, kind string) Target {
	return target{kind: kind, patch: func(ctx context.Context, namespace, name string, p []byte) error {
		_, err := client.Resource(gvr).Namespace(namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
		return err
	}}
}

// Func makes a Target of a patch function, for typed clients of other
// kinds.
func Func(kind string, patch func(ctx context.Context, namespace, name string, p []byte) error) Target {
	return target{kind: kind, patch: patch}
}

type target struct {
	kind  string
	patch func(ctx context.Context, namespace, name string, p []byte) error
}

func (t target) Kind() string { return t.kind }

func (t target) Patch(ctx context.Context, namespace, name string, p []byte) error {
	err := t.patch(ctx, namespace, name, p)
	if apierrors.IsForbidden(err) {
		// The usual cause on a fresh install; say which rule is missing.
		return fmt.Errorf("the RBAC rules must allow patch on %s: %w", t.kind, err)
	}
	return err
}
