package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const (
	// benchUserAgent is how the benchmark's own requests appear in the
	// audit log, so they are never counted as the sidecar's.
	benchUserAgent = "csi-provisioner-bench"
	// claimNamespace holds the claims; the sidecar's ServiceAccount lives
	// in the stack's namespace.
	claimNamespace = "bench"
	// className is the Immediate StorageClass of the mock driver.
	className = "bench-immediate"
	// claimSize is small: the mock driver stores nothing, and the size
	// plays no part in what is measured.
	claimSize = "1Mi"
)

// newBenchClient returns the benchmark's client: the admin identity with a
// rate limit that never throttles it, speaking protobuf as the sidecar does.
func newBenchClient(cfg *rest.Config, opts CreatorOptions) (kubernetes.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = benchUserAgent
	cfg.QPS = opts.QPS
	cfg.Burst = opts.Burst
	cfg.ContentType = runtime.ContentTypeProtobuf
	return kubernetes.NewForConfig(cfg)
}

// createNamespaceAndClass creates the claims' namespace and the Immediate
// StorageClass of the driver (reclaim policy Delete, so deleting a claim
// deletes its volume).
func createNamespaceAndClass(ctx context.Context, client kubernetes.Interface, driver string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: claimNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", claimNamespace, err)
	}
	immediate := storagev1.VolumeBindingImmediate
	reclaim := corev1.PersistentVolumeReclaimDelete
	_, err = client.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: className},
		Provisioner:       driver,
		VolumeBindingMode: &immediate,
		ReclaimPolicy:     &reclaim,
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create StorageClass %s: %w", className, err)
	}
	return nil
}

func claimNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%05d", prefix, i)
	}
	return names
}

func newClaim(name string) *corev1.PersistentVolumeClaim {
	class := className
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: claimNamespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class,
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(claimSize)},
			},
		},
	}
}

// callResult is the outcome of a batch of create or delete calls.
type callResult struct {
	first, last time.Time // first call issued, last call returned
	failed      int
	firstErr    error
}

// forEach calls call for every name from workers goroutines, as fast as the
// API server answers, and records each call in the tracker through sent and
// done.
func forEach(ctx context.Context, names []string, workers int, call func(context.Context, string) error, sent, done func(string, time.Time)) callResult {
	var (
		next   atomic.Int64
		mu     sync.Mutex
		result callResult
		wg     sync.WaitGroup
	)
	result.first = time.Now()
	for range max(1, workers) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) || ctx.Err() != nil {
					return
				}
				sent(names[i], time.Now())
				err := call(ctx, names[i])
				now := time.Now()
				mu.Lock()
				if err != nil {
					result.failed++
					if result.firstErr == nil {
						result.firstErr = err
					}
				} else if done != nil {
					done(names[i], now)
				}
				if now.After(result.last) {
					result.last = now
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return result
}

// createClaims creates the claims as fast as the API server answers.
func createClaims(ctx context.Context, client kubernetes.Interface, t *tracker, names []string, workers int) callResult {
	return forEach(ctx, names, workers, func(ctx context.Context, name string) error {
		_, err := client.CoreV1().PersistentVolumeClaims(claimNamespace).Create(ctx, newClaim(name), metav1.CreateOptions{})
		return err
	}, t.markCreateSent, t.markCreated)
}

// deleteClaims deletes the claims as fast as the API server answers.
func deleteClaims(ctx context.Context, client kubernetes.Interface, t *tracker, names []string, workers int) callResult {
	return forEach(ctx, names, workers, func(ctx context.Context, name string) error {
		err := client.CoreV1().PersistentVolumeClaims(claimNamespace).Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}, t.markDeleteSent, nil)
}
