package bench

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	// ClaimNamespace holds the claims; the sidecar's ServiceAccount lives
	// in the stack's namespace.
	ClaimNamespace = "bench"
	// ClassName is the Immediate StorageClass of the mock driver.
	ClassName = "bench-immediate"
	// ClaimSize is small: the mock driver stores nothing, and the size
	// plays no part in what is measured.
	ClaimSize = "1Mi"
	// AnnStorageProvisioner is the annotation with which
	// kube-controller-manager's PV binder hands a claim to its external
	// provisioner; the sidecar does not look at a claim without it.
	AnnStorageProvisioner = "volume.kubernetes.io/storage-provisioner"
)

// NewClient returns the benchmark's client: the admin identity with a
// rate limit that never throttles it, speaking protobuf as the sidecar
// does, and a user agent that tells its requests apart in the audit log.
func NewClient(cfg *rest.Config, opts CreatorOptions) (kubernetes.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = measure.BenchUserAgent
	cfg.QPS = opts.QPS
	cfg.Burst = opts.Burst
	cfg.ContentType = runtime.ContentTypeProtobuf
	return kubernetes.NewForConfig(cfg)
}

// EnsureNamespace creates a namespace unless it exists.
func EnsureNamespace(ctx context.Context, client kubernetes.Interface, name string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}

// CreateNamespaceAndClass creates the claims' namespace and the Immediate
// StorageClass of the driver (reclaim policy Delete, so deleting a claim
// deletes its volume).
func CreateNamespaceAndClass(ctx context.Context, client kubernetes.Interface, driver string) error {
	if err := EnsureNamespace(ctx, client, ClaimNamespace); err != nil {
		return err
	}
	_, err := client.StorageV1().StorageClasses().Create(ctx, framework.NewStorageClass(ClassName, driver), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create StorageClass %s: %w", ClassName, err)
	}
	return nil
}

// ClaimNames are prefix-00000 to prefix-<n-1>.
func ClaimNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%05d", prefix, i)
	}
	return names
}

// NewClaim is a claim of ClaimSize of the Immediate class in
// ClaimNamespace.
func NewClaim(name string) *corev1.PersistentVolumeClaim {
	return framework.NewClaim(ClaimNamespace, name, ClassName, ClaimSize)
}
