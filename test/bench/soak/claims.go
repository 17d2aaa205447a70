package soak

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// apiRetryBudget bounds how long a churn call keeps retrying while
// kube-apiserver is down: far longer than any fault keeps it down.
const apiRetryBudget = 3 * time.Minute

// retryAPI calls fn until it reports done, retrying every second on
// errors (kube-apiserver restarting), for at most apiRetryBudget.
func retryAPI(ctx context.Context, what string, fn func(context.Context) (bool, error)) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, apiRetryBudget, true, func(ctx context.Context) (bool, error) {
		done, err := fn(ctx)
		last = err
		return done, nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return errors.Join(ctx.Err(), last)
	}
	return fmt.Errorf("%s: gave up after %s: %w", what, apiRetryBudget, last)
}

func createStorageClass(ctx context.Context, client kubernetes.Interface, provisioner string) error {
	_, err := client.StorageV1().StorageClasses().Create(ctx, framework.NewStorageClass(storageClass, provisioner), metav1.CreateOptions{})
	return err
}

func claimSpec(name string, clone bool) *corev1.PersistentVolumeClaim {
	pvc := framework.NewClaim(namespace, name, storageClass, "1Gi")
	if clone {
		pvc.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: goldenClaim}
	}
	return pvc
}

// createClaim creates the claim, retrying through faults. A create that
// reached the API before an error is found by name.
func createClaim(ctx context.Context, client kubernetes.Interface, name string, clone bool) (*corev1.PersistentVolumeClaim, error) {
	claims := client.CoreV1().PersistentVolumeClaims(namespace)
	var out *corev1.PersistentVolumeClaim
	err := retryAPI(ctx, "create claim "+name, func(ctx context.Context) (bool, error) {
		pvc, err := claims.Create(ctx, claimSpec(name, clone), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			pvc, err = claims.Get(ctx, name, metav1.GetOptions{})
		}
		out = pvc
		return err == nil, err
	})
	return out, err
}

// deleteClaim deletes the claim, retrying through faults.
func deleteClaim(ctx context.Context, client kubernetes.Interface, name string) error {
	claims := client.CoreV1().PersistentVolumeClaims(namespace)
	return retryAPI(ctx, "delete claim "+name, func(ctx context.Context) (bool, error) {
		err := claims.Delete(ctx, name, metav1.DeleteOptions{})
		return err == nil || apierrors.IsNotFound(err), err
	})
}

// waitBound waits until the claim is Bound or timeout passes, and reports
// which.
func waitBound(ctx context.Context, client kubernetes.Interface, name string, timeout time.Duration) bool {
	claims := client.CoreV1().PersistentVolumeClaims(namespace)
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		pvc, err := claims.Get(ctx, name, metav1.GetOptions{})
		return err == nil && pvc.Status.Phase == corev1.ClaimBound, nil
	})
	return err == nil
}
