package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	storageClassName = "demo-mock"
	claimName        = "demo-claim"
	claimSize        = "1Gi"
	// stepTimeout bounds each wait. Provisioning takes a second or two;
	// the margin is for a loaded two-core machine.
	stepTimeout = 60 * time.Second
)

// run is the whole demo; teardown always happens, and its problems are
// reported too, since a component that did not stop is a failure as well.
func (d *demo) run(ctx context.Context) (err error) {
	if err := d.prepareWorkDir(); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "demo: work dir %s\n", d.workDir)
	defer func() {
		terr := d.teardown()
		if terr == nil {
			d.step("teardown: sidecar, driver and control plane stopped; no process left")
		}
		err = errors.Join(err, terr)
	}()

	if err := d.startStack(ctx); err != nil {
		return err
	}
	pvName, err := d.provision(ctx)
	if err != nil {
		return err
	}
	return d.deprovision(ctx, pvName)
}

// provision creates a StorageClass for the driver and a claim, waits for the
// sidecar to create the PV and for kube-controller-manager to bind the claim
// to it, and checks that the driver holds the volume.
func (d *demo) provision(ctx context.Context) (string, error) {
	client := d.stack.Client()
	sc := framework.NewStorageClass(storageClassName, d.cfg.driverName)
	if _, err := client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("create StorageClass: %w", err)
	}
	pvc := framework.NewClaim(d.cfg.namespace, claimName, storageClassName, claimSize)
	if _, err := client.CoreV1().PersistentVolumeClaims(d.cfg.namespace).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("create PVC: %w", err)
	}
	d.step("created StorageClass %s (provisioner %s, reclaimPolicy Delete) and PVC %s/%s (%s)",
		storageClassName, d.cfg.driverName, d.cfg.namespace, claimName, claimSize)

	var bound *corev1.PersistentVolumeClaim
	err := d.poll(ctx, stepTimeout, "the PVC to be Bound", func() (bool, error) {
		got, err := client.CoreV1().PersistentVolumeClaims(d.cfg.namespace).Get(ctx, claimName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		bound = got
		return got.Status.Phase == corev1.ClaimBound, fmt.Errorf("PVC phase %q", got.Status.Phase)
	})
	if err != nil {
		return "", err
	}
	pvName := bound.Spec.VolumeName
	pv, err := client.CoreV1().PersistentVolumes().Get(ctx, pvName, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("get PV %s: %w", pvName, err)
	}
	if pv.Spec.CSI == nil {
		return "", fmt.Errorf("PV %s has no CSI source", pvName)
	}
	capacity := pv.Spec.Capacity[corev1.ResourceStorage]
	d.step("PVC %s/%s is Bound to PV %s", d.cfg.namespace, claimName, pvName)
	d.detail("PV %s: driver %s, volumeHandle %s, capacity %s, phase %s", pvName, pv.Spec.CSI.Driver, pv.Spec.CSI.VolumeHandle, capacity.String(), pv.Status.Phase)
	d.detail("PV finalizers: %s", strings.Join(pv.Finalizers, ", "))
	if pv.Spec.CSI.Driver != d.cfg.driverName {
		return "", fmt.Errorf("PV %s names driver %q, want %q", pvName, pv.Spec.CSI.Driver, d.cfg.driverName)
	}

	vols, err := d.stack.DriverVolumes()
	if err != nil {
		return "", fmt.Errorf("read the driver's state: %w", err)
	}
	d.detail("driver state %s: %d volume(s)", d.stack.StateFile(), len(vols))
	found := false
	for _, v := range vols {
		d.detail("  volume id=%s name=%s capacity=%d bytes", v.ID, v.Name, v.CapacityBytes)
		found = found || v.ID == pv.Spec.CSI.VolumeHandle
	}
	if len(vols) != 1 || !found {
		return "", fmt.Errorf("driver holds %d volume(s), want exactly the PV's %s", len(vols), pv.Spec.CSI.VolumeHandle)
	}
	return pvName, nil
}

// deprovision deletes the claim and waits for the sidecar to delete the
// volume in the driver and the PV object.
func (d *demo) deprovision(ctx context.Context, pvName string) error {
	client := d.stack.Client()
	if err := client.CoreV1().PersistentVolumeClaims(d.cfg.namespace).Delete(ctx, claimName, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete PVC: %w", err)
	}
	d.step("deleted PVC %s/%s", d.cfg.namespace, claimName)

	err := d.poll(ctx, stepTimeout, "PV "+pvName+" to be deleted", func() (bool, error) {
		pv, err := client.CoreV1().PersistentVolumes().Get(ctx, pvName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return false, fmt.Errorf("PV phase %q, finalizers %v", pv.Status.Phase, pv.Finalizers)
	})
	if err != nil {
		return err
	}
	var vols []mockdriver.Volume
	err = d.poll(ctx, stepTimeout, "the driver's state to be empty", func() (bool, error) {
		vs, rerr := d.stack.DriverVolumes()
		if rerr != nil {
			return false, rerr
		}
		vols = vs
		return len(vols) == 0, fmt.Errorf("%d volume(s) left", len(vols))
	})
	if err != nil {
		return err
	}
	d.step("PV %s deleted; driver state: %d volume(s)", pvName, len(vols))
	return nil
}
