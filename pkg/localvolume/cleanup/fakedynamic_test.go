package cleanup

// This file stands in for k8s.io/client-go/dynamic/fake, which is not in
// vendor/. It follows NewSimpleDynamicClientWithCustomListKinds: unstructured
// objects in a client-go testing ObjectTracker, reached through testing.Fake
// so that tests can read the actions and prepend reactors. Once the package
// is vendored, newFakeDynamicClient can be replaced by it and this file
// deleted.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	k8stesting "k8s.io/client-go/testing"
)

type fakeDynamicClient struct {
	k8stesting.Fake
	tracker       k8stesting.ObjectTracker
	gvrToListKind map[schema.GroupVersionResource]string
}

var _ dynamic.Interface = &fakeDynamicClient{}

// newFakeDynamicClient has the signature of
// dynamicfake.NewSimpleDynamicClientWithCustomListKinds.
func newFakeDynamicClient(scheme *runtime.Scheme, gvrToListKind map[schema.GroupVersionResource]string, objects ...runtime.Object) *fakeDynamicClient {
	for gvr, listKind := range gvrToListKind {
		if !strings.HasSuffix(listKind, "List") {
			panic("list kind must end in List")
		}
		listGVK := gvr.GroupVersion().WithKind(listKind)
		if _, err := scheme.New(listGVK); err != nil {
			scheme.AddKnownTypeWithName(listGVK, &unstructured.UnstructuredList{})
		}
	}
	tracker := k8stesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
	for _, obj := range objects {
		if err := tracker.Add(obj); err != nil {
			panic(err)
		}
	}
	c := &fakeDynamicClient{tracker: tracker, gvrToListKind: gvrToListKind}
	c.AddReactor("*", "*", k8stesting.ObjectReaction(tracker))
	c.AddWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, w, nil
	})
	return c
}

func (c *fakeDynamicClient) Tracker() k8stesting.ObjectTracker { return c.tracker }

// IsWatchListSemanticsUnSupported keeps reflectors from streaming lists,
// which the tracker cannot do.
func (c *fakeDynamicClient) IsWatchListSemanticsUnSupported() bool { return true }

func (c *fakeDynamicClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return &fakeResource{client: c, gvr: gvr}
}

type fakeResource struct {
	client    *fakeDynamicClient
	gvr       schema.GroupVersionResource
	namespace string
}

func (r *fakeResource) Namespace(ns string) dynamic.ResourceInterface {
	out := *r
	out.namespace = ns
	return &out
}

var errNotFaked = errors.New("not implemented by the fake dynamic client")

func toUnstructured(obj runtime.Object, err error) (*unstructured.Unstructured, error) {
	if err != nil || obj == nil {
		return nil, err
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func (r *fakeResource) Create(_ context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions, sub ...string) (*unstructured.Unstructured, error) {
	if len(sub) > 0 {
		return nil, errNotFaked
	}
	return toUnstructured(r.client.Invokes(k8stesting.NewCreateActionWithOptions(r.gvr, r.namespace, obj, opts), &metav1.Status{}))
}

func (r *fakeResource) Update(_ context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions, sub ...string) (*unstructured.Unstructured, error) {
	if len(sub) > 0 {
		return nil, errNotFaked
	}
	return toUnstructured(r.client.Invokes(k8stesting.NewUpdateActionWithOptions(r.gvr, r.namespace, obj, opts), &metav1.Status{}))
}

func (r *fakeResource) UpdateStatus(context.Context, *unstructured.Unstructured, metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	return nil, errNotFaked
}

func (r *fakeResource) Delete(_ context.Context, name string, opts metav1.DeleteOptions, sub ...string) error {
	if len(sub) > 0 {
		return errNotFaked
	}
	_, err := r.client.Invokes(k8stesting.NewDeleteActionWithOptions(r.gvr, r.namespace, name, opts), &metav1.Status{})
	return err
}

func (r *fakeResource) DeleteCollection(context.Context, metav1.DeleteOptions, metav1.ListOptions) error {
	return errNotFaked
}

func (r *fakeResource) Get(_ context.Context, name string, opts metav1.GetOptions, sub ...string) (*unstructured.Unstructured, error) {
	if len(sub) > 0 {
		return nil, errNotFaked
	}
	return toUnstructured(r.client.Invokes(k8stesting.NewGetActionWithOptions(r.gvr, r.namespace, name, opts), &metav1.Status{}))
}

func (r *fakeResource) List(_ context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	listKind, ok := r.client.gvrToListKind[r.gvr]
	if !ok {
		return nil, fmt.Errorf("no list kind registered for %v", r.gvr)
	}
	// The tracker appends "List" to the kind it is given.
	kind := r.gvr.GroupVersion().WithKind(strings.TrimSuffix(listKind, "List"))
	obj, err := r.client.Invokes(k8stesting.NewListActionWithOptions(r.gvr, kind, r.namespace, opts), &metav1.Status{})
	if err != nil || obj == nil {
		return nil, err
	}
	all, ok := obj.(*unstructured.UnstructuredList)
	if !ok {
		return nil, fmt.Errorf("tracker listed %T, not an UnstructuredList", obj)
	}
	selector := labels.Everything()
	if opts.LabelSelector != "" {
		if selector, err = labels.Parse(opts.LabelSelector); err != nil {
			return nil, err
		}
	}
	list := &unstructured.UnstructuredList{}
	list.SetResourceVersion(all.GetResourceVersion())
	list.GetObjectKind().SetGroupVersionKind(r.gvr.GroupVersion().WithKind(listKind))
	for _, item := range all.Items {
		if selector.Matches(labels.Set(item.GetLabels())) {
			list.Items = append(list.Items, item)
		}
	}
	return list, nil
}

func (r *fakeResource) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return r.client.InvokesWatch(k8stesting.NewWatchActionWithOptions(r.gvr, r.namespace, opts))
}

// Patch records the subresource in the action; serverSemantics gives the
// status subresource its meaning.
func (r *fakeResource) Patch(_ context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*unstructured.Unstructured, error) {
	if len(sub) > 1 || (len(sub) == 1 && sub[0] != "status") {
		return nil, errNotFaked
	}
	return toUnstructured(r.client.Invokes(k8stesting.NewPatchSubresourceActionWithOptions(r.gvr, r.namespace, name, pt, data, opts, sub...), &metav1.Status{}))
}

func (r *fakeResource) Apply(context.Context, string, *unstructured.Unstructured, metav1.ApplyOptions, ...string) (*unstructured.Unstructured, error) {
	return nil, errNotFaked
}

func (r *fakeResource) ApplyStatus(context.Context, string, *unstructured.Unstructured, metav1.ApplyOptions) (*unstructured.Unstructured, error) {
	return nil, errNotFaked
}
