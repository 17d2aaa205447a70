//go:build e2e

package e2e

import (
	"context"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

func createAttributesClass(ctx context.Context, t *testing.T, s *framework.Stack, name, driver string, params map[string]string) {
	t.Helper()
	vac := &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: name}, DriverName: driver, Parameters: params}
	if _, err := s.Client().StorageV1().VolumeAttributesClasses().Create(ctx, vac, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create VolumeAttributesClass %s: %v", name, err)
	}
}

func withAttributesClass(name string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) { pvc.Spec.VolumeAttributesClassName = &name }
}

// waitForFailure waits for the claim's ProvisioningFailed warning naming
// want, and checks that nothing was created for it.
func waitForFailure(ctx context.Context, t *testing.T, s *framework.Stack, claim, want string) {
	t.Helper()
	ev := waitForClaimEvent(ctx, t, s, "default", claim, corev1.EventTypeWarning, "ProvisioningFailed")
	if !strings.Contains(ev.Message, want) {
		t.Errorf("ProvisioningFailed says %q, want it to contain %q", ev.Message, want)
	}
	for _, v := range driverVolumes(t, s) {
		if strings.HasSuffix(v.Name, string(getClaim(ctx, t, s, "default", claim).UID)) {
			t.Errorf("driver created volume %s for claim %s", v.Name, claim)
		}
	}
}

// A claim naming a VolumeAttributesClass of this driver gets a volume made
// with the class's parameters as its mutable parameters, and a PV of that
// class, which kube-controller-manager binds. A missing class and a class
// of another driver each leave the claim Pending with its event; the
// missing class, once created, is picked up by the next retry.
func TestVolumeAttributesClassProvisioning(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		// Retries every few seconds rather than after minutes.
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{"--retry-interval-max=2s"}},
	})
	createStorageClass(ctx, t, s, "mock")
	gold := map[string]string{"iops": "3000", "throughput": "125"}
	createAttributesClass(ctx, t, s, "gold", s.DriverName(), gold)
	createAttributesClass(ctx, t, s, "foreign", "other.csi.example.com", gold)

	createClaim(ctx, t, s, "default", "fast", "mock", withAttributesClass("gold"))
	_, pv := waitForClaimBound(ctx, t, s, "default", "fast")
	if got := pv.Spec.VolumeAttributesClassName; got == nil || *got != "gold" {
		t.Errorf("PV volumeAttributesClassName = %v, want gold", got)
	}
	vol, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", pv.Spec.CSI.VolumeHandle)
	}
	if !maps.Equal(vol.MutableParameters, gold) {
		t.Errorf("driver recorded mutable parameters %v, want the class's %v", vol.MutableParameters, gold)
	}

	createClaim(ctx, t, s, "default", "foreign", "mock", withAttributesClass("foreign"))
	waitForFailure(ctx, t, s, "foreign", "VAC foreign referenced in PVC is for driver other.csi.example.com which does not match driver name "+s.DriverName())

	createClaim(ctx, t, s, "default", "later", "mock", withAttributesClass("silver"))
	waitForFailure(ctx, t, s, "later", `volumeattributesclasses.storage.k8s.io "silver" not found`)
	silver := map[string]string{"iops": "1000"}
	createAttributesClass(ctx, t, s, "silver", s.DriverName(), silver)
	_, pv = waitForClaimBound(ctx, t, s, "default", "later")
	if vol, _ := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle); !maps.Equal(vol.MutableParameters, silver) {
		t.Errorf("driver recorded mutable parameters %v, want %v", vol.MutableParameters, silver)
	}
	if pvc := getClaim(ctx, t, s, "default", "foreign"); pvc.Status.Phase != corev1.ClaimPending {
		t.Errorf("claim of another driver's class is %s, want Pending", pvc.Status.Phase)
	}
}

// A driver without MODIFY_VOLUME could never apply a class: a claim naming
// one gets the event and no volume.
func TestVolumeAttributesClassNeedsModifyVolume(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{ExtraArgs: []string{"--modify-volume=false"}},
	})
	createStorageClass(ctx, t, s, "mock")
	createAttributesClass(ctx, t, s, "gold", s.DriverName(), map[string]string{"iops": "3000"})
	createClaim(ctx, t, s, "default", "fast", "mock", withAttributesClass("gold"))
	waitForFailure(ctx, t, s, "fast", "CSI driver does not support VolumeAttributesClass: controller MODIFY_VOLUME capability is not reported")
}
