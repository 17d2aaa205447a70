package claimdeletion

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// quietGap is how long nothing happens in the quiet namespace before each
// single deletion: long enough for every watch to have delivered what came
// before, so the deletion meets a controller with nothing else to do.
const quietGap = 2 * time.Second

// measureQuietDeletions deletes opts.QuietDeletions unused claims one at a
// time in a namespace of opts.QuietPods scheduled pods, and records how long
// each took to leave the API.
func measureQuietDeletions(ctx context.Context, opts Options, s *framework.Stack, res *RunResult) error {
	if opts.QuietDeletions <= 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, err := bench.NewClient(s.Cluster().RESTConfig(), opts.Creator)
	if err != nil {
		return err
	}
	names := bench.ClaimNames("alone", opts.QuietDeletions)
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
func createQuietWorkload(ctx context.Context, opts Options, client kubernetes.Interface, claims []string) error {
	if err := bench.EnsureNamespace(ctx, client, quietNamespace); err != nil {
		return err
	}
	for _, name := range bench.ClaimNames("quiet-app", opts.QuietPods) {
		if _, err := client.CoreV1().Pods(quietNamespace).Create(ctx, scheduledPod(name, quietNamespace), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s/%s: %w", quietNamespace, name, err)
		}
	}
	for _, name := range claims {
		if _, err := client.CoreV1().PersistentVolumeClaims(quietNamespace).Create(ctx, unusedClaim(name, quietNamespace), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create claim %s/%s: %w", quietNamespace, name, err)
		}
	}
	return nil
}
