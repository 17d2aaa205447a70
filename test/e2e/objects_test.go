//go:build e2e

package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Names the sidecar shares with Kubernetes and upstream external-provisioner.
// They are spelled out rather than imported from pkg/controller: a drop-in
// replacement must use exactly these strings.
const (
	annSelectedNode          = "volume.kubernetes.io/selected-node"
	annProvisionedBy         = "pv.kubernetes.io/provisioned-by"
	annDeletionSecretName    = "volume.kubernetes.io/provisioner-deletion-secret-name"
	annDeletionSecretNS      = "volume.kubernetes.io/provisioner-deletion-secret-namespace"
	cloningProtection        = "provisioner.storage.kubernetes.io/cloning-protection"
	provisionerSecretNameKey = "csi.storage.k8s.io/provisioner-secret-name"
	provisionerSecretNSKey   = "csi.storage.k8s.io/provisioner-secret-namespace"
	nodePublishSecretNameKey = "csi.storage.k8s.io/node-publish-secret-name"
	nodePublishSecretNSKey   = "csi.storage.k8s.io/node-publish-secret-namespace"
)

// createStorageClass creates a class of the stack's driver with reclaim
// policy Delete and Immediate binding, changed by the mutators.
func createStorageClass(ctx context.Context, t *testing.T, s *framework.Stack, name string, mutate ...func(*storagev1.StorageClass)) *storagev1.StorageClass {
	t.Helper()
	sc := framework.NewStorageClass(name, s.DriverName())
	for _, m := range mutate {
		m(sc)
	}
	out, err := s.Client().StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create StorageClass %s: %v", name, err)
	}
	return out
}

func waitForFirstConsumer(sc *storagev1.StorageClass) {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	sc.VolumeBindingMode = &mode
}

func withParameters(params map[string]string) func(*storagev1.StorageClass) {
	return func(sc *storagev1.StorageClass) { sc.Parameters = params }
}

// createClaim creates a 1Gi ReadWriteOnce filesystem claim of the class,
// changed by the mutators.
func createClaim(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, class string, mutate ...func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	t.Helper()
	pvc := framework.NewClaim(namespace, name, class, "1Gi")
	for _, m := range mutate {
		m(pvc)
	}
	out, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Create(ctx, pvc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create PVC %s/%s: %v", namespace, name, err)
	}
	return out
}

func blockMode(pvc *corev1.PersistentVolumeClaim) {
	mode := corev1.PersistentVolumeBlock
	pvc.Spec.VolumeMode = &mode
}

func withAnnotation(key, value string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) {
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, key, value)
	}
}

// clonedFrom makes the claim a clone of another claim in its namespace.
func clonedFrom(source string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) {
		pvc.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: source}
	}
}

// deleteClaim deletes a claim; it may stay Terminating behind finalizers.
func deleteClaim(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) {
	t.Helper()
	err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil {
		t.Fatalf("delete PVC %s/%s: %v", namespace, name, err)
	}
}

// createNamespace creates a namespace for a test's claims and secrets.
func createNamespace(ctx context.Context, t *testing.T, s *framework.Stack, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := s.Client().CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// createSecret creates an Opaque secret with the given keys (values are
// irrelevant: the driver records only the keys).
func createSecret(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string, keys ...string) {
	t.Helper()
	data := map[string]string{}
	for _, k := range keys {
		data[k] = "value-of-" + k
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, StringData: data}
	if _, err := s.Client().CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Secret %s/%s: %v", namespace, name, err)
	}
}

// createTopologyNode registers a node the way the kubelet and the driver's
// node plugin would: a Node labelled with the driver's topology segment, and
// a CSINode naming the driver, its node id and its topology key.
func createTopologyNode(ctx context.Context, t *testing.T, s *framework.Stack, name string) {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:   name,
		Labels: map[string]string{mockdriver.TopologyKey: name},
	}}
	if _, err := s.Client().CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Node %s: %v", name, err)
	}
	csiNode := &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
			Name:         s.DriverName(),
			NodeID:       name,
			TopologyKeys: []string{mockdriver.TopologyKey},
		}}},
	}
	if _, err := s.Client().StorageV1().CSINodes().Create(ctx, csiNode, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CSINode %s: %v", name, err)
	}
}
