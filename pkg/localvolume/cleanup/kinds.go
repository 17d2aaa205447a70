package cleanup

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
	"github.com/csi-protect/external-provisioner/pkg/generated/informers/externalversions"
)

// kind is one of the two owner kinds and how the controller reads and
// writes its objects: the generated informer, lister and client.
type kind struct {
	name     string
	gvr      schema.GroupVersionResource
	informer cache.SharedIndexInformer
	// get reads an object from the lister.
	get func(namespace, name string) (runtime.Object, error)
	// target writes the finalizer and its marker annotation.
	target finalizer.Target
	// patchStatus sends a merge patch to the status subresource.
	patchStatus func(ctx context.Context, namespace, name string, patch []byte) error
}

// ownerKinds are the two kinds over client and the informers of factory.
func ownerKinds(client versioned.Interface, factory externalversions.SharedInformerFactory) map[string]*kind {
	lvs := factory.Local().V1().LocalVolumes()
	sets := factory.Local().V1alpha1().LocalVolumeSets()
	return map[string]*kind{
		KindLocalVolume: {
			name: KindLocalVolume, gvr: LocalVolumeResource, informer: lvs.Informer(),
			get: func(namespace, name string) (runtime.Object, error) {
				return lvs.Lister().LocalVolumes(namespace).Get(name)
			},
			target: finalizer.Func(KindLocalVolume, func(ctx context.Context, namespace, name string, p []byte) error {
				_, err := client.LocalV1().LocalVolumes(namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
				return err
			}),
			patchStatus: func(ctx context.Context, namespace, name string, p []byte) error {
				_, err := client.LocalV1().LocalVolumes(namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{}, "status")
				return err
			},
		},
		KindLocalVolumeSet: {
			name: KindLocalVolumeSet, gvr: LocalVolumeSetResource, informer: sets.Informer(),
			get: func(namespace, name string) (runtime.Object, error) {
				return sets.Lister().LocalVolumeSets(namespace).Get(name)
			},
			target: finalizer.Func(KindLocalVolumeSet, func(ctx context.Context, namespace, name string, p []byte) error {
				_, err := client.LocalV1alpha1().LocalVolumeSets(namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
				return err
			}),
			patchStatus: func(ctx context.Context, namespace, name string, p []byte) error {
				_, err := client.LocalV1alpha1().LocalVolumeSets(namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{}, "status")
				return err
			},
		},
	}
}

// cachedOwner is the owner key from its informer's cache; nil if absent,
// or of a kind the controller does not know.
func (c *Controller) cachedOwner(key OwnerKey) (*owner, error) {
	k, ok := c.kinds[key.Kind]
	if !ok {
		return nil, nil
	}
	obj, err := k.get(key.Namespace, key.Name)
	if err != nil {
		return nil, reconcile.IgnoreNotFound(err)
	}
	o, _ := ownerOf(obj)
	return o, nil
}
