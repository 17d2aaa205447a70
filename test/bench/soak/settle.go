package soak

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// quietWindow is how long the backend must hold the same volumes, with
// no claim and no PV left, before the run counts as settled: a call
// outliving its caller, or a retry waiting in a back-off up to
// retryIntervalMax, could still change them before.
const quietWindow = 2 * retryIntervalMax

var errNotSettled = errors.New("not settled")

// settlePoll is how often settle looks at what is left.
const settlePoll = 2 * time.Second

// settle waits until no claim and no PV is left and the backend's volumes
// stayed the same for quietWindow.
func settle(ctx context.Context, s *framework.Stack, timeout time.Duration) error {
	var (
		quietSince time.Time
		last       []string
		left       string
		lastErr    error
	)
	err := wait.PollUntilContextTimeout(ctx, settlePoll, timeout, true, func(ctx context.Context) (bool, error) {
		var volumes []string
		left, volumes, lastErr = whatIsLeft(ctx, s)
		switch {
		case lastErr != nil || left != "":
			quietSince = time.Time{}
		case quietSince.IsZero() || !slices.Equal(volumes, last):
			quietSince, last = time.Now(), volumes
		case time.Since(quietSince) >= quietWindow:
			return true, nil
		}
		return false, nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%w within %s: %s (last error: %v)", errNotSettled, timeout, left, lastErr)
	}
	return err
}

// whatIsLeft says which claims and PVs remain ("" for none) and lists the
// backend's volume IDs.
func whatIsLeft(ctx context.Context, s *framework.Stack) (string, []string, error) {
	claims, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", nil, err
	}
	pvs, err := s.Client().CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", nil, err
	}
	st, err := s.DriverState()
	if err != nil {
		return "", nil, err
	}
	var volumes []string
	for _, v := range st.Volumes {
		volumes = append(volumes, v.ID)
	}
	slices.Sort(volumes)
	if len(claims.Items) > 0 || len(pvs.Items) > 0 {
		return fmt.Sprintf("%d claim(s) and %d PV(s) left", len(claims.Items), len(pvs.Items)), volumes, nil
	}
	return "", volumes, nil
}
