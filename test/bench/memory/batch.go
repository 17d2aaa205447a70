package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// batch provisions Options.Batch claims of the Immediate class and waits
// until they are Bound, then deletes them and the first claim and waits
// until their claims, PVs and the driver's volumes are gone. Only this
// run's claims are counted, and each wait is bounded by timeout: a sweep run that was killed may have left
// some of its own behind.
func (m *runner) batch(ctx context.Context, res *SidecarRun, first *firstClaim, timeout time.Duration) error {
	names := bench.ClaimNames(fmt.Sprintf("run%02d", res.Order), m.opts.Batch)
	mine := append(slices.Clone(names), first.name)
	claims := m.client.CoreV1().PersistentVolumeClaims(bench.ClaimNamespace)
	workers := min(m.opts.Creator.Workers, len(names))

	start := time.Now()
	created := bench.CreateClaims(ctx, m.client, names, workers, bench.NewClaim, nil, nil)
	if created.Failed > 0 {
		return fmt.Errorf("%d batch claims not created, first: %w", created.Failed, created.FirstErr)
	}
	var volumes []string
	err := m.stack.WaitFor(ctx, timeout, "the batch to be Bound", func(ctx context.Context) (bool, error) {
		list, err := claims.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		volumes, res.BatchBound = volumes[:0], 0
		for i := range list.Items {
			c := &list.Items[i]
			if c.Status.Phase != corev1.ClaimBound || !slices.Contains(mine, c.Name) {
				continue
			}
			volumes = append(volumes, c.Spec.VolumeName)
			if c.Name != first.name {
				res.BatchBound++
			}
		}
		return res.BatchBound == len(names), fmt.Errorf("%d of %d Bound", res.BatchBound, len(names))
	})
	res.BatchProvision = time.Since(start)
	if err != nil {
		return err
	}

	start = time.Now()
	deleted := bench.DeleteClaims(ctx, m.client, bench.ClaimNamespace, mine, workers, nil)
	if deleted.Failed > 0 {
		return fmt.Errorf("%d batch claims not deleted, first: %w", deleted.Failed, deleted.FirstErr)
	}
	res.ClaimsLeft, res.PVsLeft = len(mine), len(volumes)
	err = m.stack.WaitFor(ctx, timeout, "the batch's claims, PVs and volumes to be gone", func(ctx context.Context) (bool, error) {
		list, err := claims.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		res.ClaimsLeft = 0
		for i := range list.Items {
			if slices.Contains(mine, list.Items[i].Name) {
				res.ClaimsLeft++
			}
		}
		if volumes, err = m.livePVs(ctx, volumes); err != nil {
			return false, err
		}
		res.PVsLeft = len(volumes)
		vols, err := m.stack.DriverVolumes()
		if err != nil {
			return false, err
		}
		res.VolumesLeft = len(vols)
		return res.ClaimsLeft == 0 && res.PVsLeft == 0 && res.VolumesLeft == 0,
			fmt.Errorf("%d claims, %d PVs and %d driver volumes left", res.ClaimsLeft, res.PVsLeft, res.VolumesLeft)
	})
	res.BatchDelete = time.Since(start)
	return err
}

// livePVs returns the PVs of names that still exist. It stops at the first
// one found: the caller only needs to know when none is left, and one GET
// per poll is all that costs while they are being deleted.
func (m *runner) livePVs(ctx context.Context, names []string) ([]string, error) {
	for i, name := range names {
		_, err := m.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return names[i:], err
		default:
			return names[i:], nil
		}
	}
	return nil, nil
}
