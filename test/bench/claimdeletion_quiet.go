package bench

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// quietGap is how long nothing happens in the quiet namespace before each
// single deletion: long enough for every watch to have delivered what came
// before, so the deletion meets a controller with nothing else to do.
const quietGap = 2 * time.Second

// measureQuietDeletions deletes opts.QuietDeletions unused claims one at a
// time in a namespace of opts.QuietPods scheduled pods, and records how long
// each took to leave the API.
func measureQuietDeletions(ctx context.Context, opts DeletionOptions, s *framework.Stack, res *DeletionRun) error {
	if opts.QuietDeletions <= 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, err := newBenchClient(s.Cluster().RESTConfig(), opts.Creator)
	if err != nil {
		return err
	}
	names := claimNames("alone", opts.QuietDeletions)
	if err := createQuietWorkload(ctx, opts, client, names); err != nil {
		return err
	}
	goneCh := make(chan string, len(names))
	if _, err := watchNamespaceClaimsGone(ctx, client, quietNamespace, func(name string) { goneCh <- name }); err != nil {
		return err
	}
	for _, name := range names {
		time.Sleep(quietGap)
		start := time.Now()
		if err := client.CoreV1().PersistentVolumeClaims(quietNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return fmt.Errorf("delete claim %s/%s: %w", quietNamespace, name, err)
		}
		if err := waitGone(ctx, goneCh, name, opts.PhaseTimeout); err != nil {
			return err
		}
		res.Quiet = append(res.Quiet, time.Since(start))
	}
	return nil
}

func waitGone(ctx context.Context, goneCh <-chan string, name string, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case gone := <-goneCh:
			if gone == name {
				return nil
			}
		case <-timer.C:
			return fmt.Errorf("claim %s/%s still there after %s", quietNamespace, name, timeout)
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// createQuietWorkload creates the quiet namespace, its scheduled pods and
// the claims to delete (of the WaitForFirstConsumer class, never
// provisioned).
func createQuietWorkload(ctx context.Context, opts DeletionOptions, client kubernetes.Interface, claims []string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: quietNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	for _, name := range claimNames("quiet-app", opts.QuietPods) {
		pod := scheduledPod(name)
		pod.Namespace = quietNamespace
		if _, err := client.CoreV1().Pods(quietNamespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s/%s: %w", quietNamespace, name, err)
		}
	}
	for _, name := range claims {
		pvc := newClaim(name)
		pvc.Namespace = quietNamespace
		class := deletionClass
		pvc.Spec.StorageClassName = &class
		if _, err := client.CoreV1().PersistentVolumeClaims(quietNamespace).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create claim %s/%s: %w", quietNamespace, name, err)
		}
	}
	return nil
}
