package agent

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"

	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

// Resources of the owner objects.
var (
	LocalVolumeResource    = localv1.LocalVolumesResource
	LocalVolumeSetResource = localv1alpha1.LocalVolumeSetsResource
)

// CRSource lists and watches the LocalVolume and LocalVolumeSet objects of
// all namespaces. kind is KindLocalVolume or KindLocalVolumeSet.
//
// The agent builds its own informers over it, so that tests can hand in
// owners without a dynamic client.
type CRSource interface {
	List(ctx context.Context, kind string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)
	Watch(ctx context.Context, kind string, opts metav1.ListOptions) (watch.Interface, error)
}

// NewDynamicCRSource is a CRSource over a dynamic client.
func NewDynamicCRSource(client dynamic.Interface) CRSource {
	return dynamicCRSource{client: client}
}

type dynamicCRSource struct {
	client dynamic.Interface
}

// IsWatchListSemanticsUnSupported passes on what the dynamic client says
// about streaming lists (a fake client does not support them), so the
// informers fall back to list and watch where they must.
func (s dynamicCRSource) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(s.client)
}

func resourceOf(kind string) (schema.GroupVersionResource, error) {
	switch kind {
	case KindLocalVolume:
		return LocalVolumeResource, nil
	case KindLocalVolumeSet:
		return LocalVolumeSetResource, nil
	}
	return schema.GroupVersionResource{}, fmt.Errorf("unknown owner kind %q", kind)
}

func (s dynamicCRSource) List(ctx context.Context, kind string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	gvr, err := resourceOf(kind)
	if err != nil {
		return nil, err
	}
	return s.client.Resource(gvr).Namespace(metav1.NamespaceAll).List(ctx, opts)
}

func (s dynamicCRSource) Watch(ctx context.Context, kind string, opts metav1.ListOptions) (watch.Interface, error) {
	gvr, err := resourceOf(kind)
	if err != nil {
		return nil, err
	}
	return s.client.Resource(gvr).Namespace(metav1.NamespaceAll).Watch(ctx, opts)
}

// newCRInformer is an informer of one owner kind over src, storing
// *unstructured.Unstructured keyed namespace/name.
func newCRInformer(src CRSource, kind string) cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return src.List(ctx, kind, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return src.Watch(ctx, kind, opts)
		},
	}
	// A CRSource that implements IsWatchListSemanticsUnSupported (as
	// test fakes do) turns streaming lists off for its informers.
	return cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, src),
		&unstructured.Unstructured{}, 0, cache.Indexers{})
}
