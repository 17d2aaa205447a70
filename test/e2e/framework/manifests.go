package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"
)

// fieldManager owns the fields the framework applies.
const fieldManager = "csi-provisioner-e2e"

// ManifestOptions configures ApplyManifests.
type ManifestOptions struct {
	// Path is a YAML file of one or more documents. Data is used instead
	// when set.
	Path string
	Data []byte
	// Namespace, if set, replaces the namespace of every namespaced object
	// and of every ServiceAccount subject of a (Cluster)RoleBinding, so the
	// shipped manifests can be installed into a test's own namespace. The
	// namespace is created if missing.
	Namespace string
	// SkipKinds are left out, e.g. the DaemonSet of a manifest whose
	// program a test runs as a process.
	SkipKinds []string
}

// ApplyManifests server-side applies every object in a YAML manifest with the
// given client configuration and returns the objects as applied. Applying
// the same manifest again is harmless.
func ApplyManifests(ctx context.Context, cfg *rest.Config, opts ManifestOptions) ([]*unstructured.Unstructured, error) {
	logger := klog.FromContext(ctx)
	data := opts.Data
	if data == nil {
		if opts.Path == "" {
			return nil, errors.New("ManifestOptions needs Path or Data")
		}
		var err error
		if data, err = os.ReadFile(opts.Path); err != nil {
			return nil, err
		}
	}
	objs, err := decodeManifests(data)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", describeSource(opts), err)
	}
	objs = slices.DeleteFunc(objs, func(o *unstructured.Unstructured) bool { return slices.Contains(opts.SkipKinds, o.GetKind()) })

	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Namespace != "" {
		if err := ensureNamespace(ctx, cfg, opts.Namespace); err != nil {
			return nil, err
		}
	}

	applied := make([]*unstructured.Unstructured, 0, len(objs))
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return applied, fmt.Errorf("%s %q: %w", gvk.Kind, obj.GetName(), err)
		}
		var res dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			if opts.Namespace != "" {
				obj.SetNamespace(opts.Namespace)
			}
			if obj.GetNamespace() == "" {
				obj.SetNamespace(metav1.NamespaceDefault)
			}
			res = dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
		}
		if opts.Namespace != "" {
			if err := retargetSubjects(obj, opts.Namespace); err != nil {
				return applied, err
			}
		}
		out, err := res.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		if err != nil {
			return applied, fmt.Errorf("apply %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
		logger.V(2).Info("Applied object", "kind", gvk.Kind, "namespace", out.GetNamespace(), "name", out.GetName())
		applied = append(applied, out)
	}
	return applied, nil
}

func describeSource(opts ManifestOptions) string {
	if opts.Data != nil || opts.Path == "" {
		return "manifest"
	}
	return opts.Path
}

// decodeManifests splits a multi-document YAML stream into objects, skipping
// empty documents (a leading "---" or a comment-only one).
func decodeManifests(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{Object: m}
		if obj.GetKind() == "" || obj.GetAPIVersion() == "" {
			return nil, fmt.Errorf("document %d has no kind or apiVersion", len(objs)+1)
		}
		objs = append(objs, obj)
	}
}

// retargetSubjects points ServiceAccount subjects of a binding at namespace,
// which is where the ServiceAccount itself was moved.
func retargetSubjects(obj *unstructured.Unstructured, namespace string) error {
	if obj.GetKind() != "RoleBinding" && obj.GetKind() != "ClusterRoleBinding" {
		return nil
	}
	subjects, found, err := unstructured.NestedSlice(obj.Object, "subjects")
	if err != nil || !found {
		return err
	}
	for i, s := range subjects {
		subject, ok := s.(map[string]any)
		if ok && subject["kind"] == "ServiceAccount" {
			subject["namespace"] = namespace
			subjects[i] = subject
		}
	}
	return unstructured.SetNestedSlice(obj.Object, subjects, "subjects")
}

// ensureNamespace creates namespace unless it exists.
func ensureNamespace(ctx context.Context, cfg *rest.Config, namespace string) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", namespace, err)
	}
	return nil
}
