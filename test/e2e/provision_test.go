//go:build e2e

package e2e

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A claim of the driver's class gets a volume from CreateVolume and a PV the
// PV binder binds it to; deleting the claim releases the PV, the sidecar
// calls DeleteVolume and removes the PV, and the driver is empty again.
func TestClaimIsProvisionedBoundAndDeleted(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "data", "mock")

	pvc, pv := waitForClaimBound(ctx, t, s, "default", "data")
	if pv.Spec.CSI == nil || pv.Spec.CSI.Driver != s.DriverName() {
		t.Fatalf("PV %s has CSI source %+v, want driver %s", pv.Name, pv.Spec.CSI, s.DriverName())
	}
	if want := "pvc-" + string(pvc.UID); pv.Name != want {
		t.Errorf("PV is named %s, want %s (prefix and claim UID)", pv.Name, want)
	}
	if got := pv.Annotations[annProvisionedBy]; got != s.DriverName() {
		t.Errorf("PV annotation %s = %q, want %q", annProvisionedBy, got, s.DriverName())
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.UID != pvc.UID {
		t.Errorf("PV claimRef %+v does not name claim UID %s", ref, pvc.UID)
	}
	if got := pv.Spec.Capacity[corev1.ResourceStorage]; got.Cmp(resource.MustParse("1Gi")) != 0 {
		t.Errorf("PV capacity %s, want 1Gi", got.String())
	}
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.Spec.StorageClassName != "mock" {
		t.Errorf("PV reclaim policy %s, class %q; want Delete, mock", pv.Spec.PersistentVolumeReclaimPolicy, pv.Spec.StorageClassName)
	}

	vols := driverVolumes(t, s)
	if len(vols) != 1 {
		t.Fatalf("driver holds %d volumes, want 1: %+v", len(vols), vols)
	}
	vol := vols[0]
	if vol.ID != pv.Spec.CSI.VolumeHandle || vol.Name != pv.Name {
		t.Errorf("driver volume id %s name %s; PV handle %s name %s", vol.ID, vol.Name, pv.Spec.CSI.VolumeHandle, pv.Name)
	}
	if vol.CapacityBytes != 1<<30 || vol.AccessType != mockdriver.AccessTypeMount {
		t.Errorf("driver volume has %d bytes, access type %s; want 1Gi, %s", vol.CapacityBytes, vol.AccessType, mockdriver.AccessTypeMount)
	}

	phases := recordPVPhases(ctx, t, s, pv)
	deleteClaim(ctx, t, s, "default", "data")
	waitForPVGone(ctx, t, s, pv.Name)
	waitForDriverVolumes(ctx, t, s, 0)

	if seen := phases(); !slices.Contains(seen, string(corev1.VolumeReleased)) || seen[len(seen)-1] != "Deleted" {
		t.Errorf("PV went through %v, want Released before Deleted", seen)
	}
	st, err := s.DriverState()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(st.Deletions, func(d mockdriver.Deletion) bool { return d.VolumeID == vol.ID }) {
		t.Errorf("the driver recorded no DeleteVolume of %s: %+v", vol.ID, st.Deletions)
	}
}

// A Block claim gets a raw block volume from the driver and a Block PV.
func TestBlockClaimGetsBlockVolume(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "raw", "mock", blockMode)

	_, pv := waitForClaimBound(ctx, t, s, "default", "raw")
	if pv.Spec.VolumeMode == nil || *pv.Spec.VolumeMode != corev1.PersistentVolumeBlock {
		t.Errorf("PV volume mode %v, want Block", pv.Spec.VolumeMode)
	}
	if pv.Spec.CSI != nil && pv.Spec.CSI.FSType != "" {
		t.Errorf("block PV has fsType %q", pv.Spec.CSI.FSType)
	}
	vol, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", pv.Spec.CSI.VolumeHandle)
	}
	if vol.AccessType != mockdriver.AccessTypeBlock {
		t.Errorf("driver volume access type %s, want %s", vol.AccessType, mockdriver.AccessTypeBlock)
	}

	deleteClaim(ctx, t, s, "default", "raw")
	waitForPVGone(ctx, t, s, pv.Name)
	waitForDriverVolumes(ctx, t, s, 0)
}

// A claim with several access modes asks the driver for one capability per
// mode, as upstream does, and the PV carries every mode.
func TestClaimWithTwoAccessModesGetsTwoCapabilities(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "shared", "mock", func(c *corev1.PersistentVolumeClaim) {
		c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany}
	})

	_, pv := waitForClaimBound(ctx, t, s, "default", "shared")
	vol, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", pv.Spec.CSI.VolumeHandle)
	}
	// The mock driver reports SINGLE_NODE_MULTI_WRITER, so ReadWriteOnce
	// maps to it.
	if want := []string{"SINGLE_NODE_MULTI_WRITER", "MULTI_NODE_READER_ONLY"}; !slices.Equal(vol.AccessModes, want) {
		t.Errorf("CreateVolume capabilities had modes %v, want %v", vol.AccessModes, want)
	}
	if want := []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany}; !slices.Equal(pv.Spec.AccessModes, want) {
		t.Errorf("PV access modes %v, want %v", pv.Spec.AccessModes, want)
	}
}

// recordPVPhases watches a PV from its current version and returns a func
// giving every phase it has been seen in since, then "Deleted" once it is
// gone. A watch sees each write, so a phase that lasts only milliseconds is
// not missed the way polling could miss it.
func recordPVPhases(ctx context.Context, t *testing.T, s *framework.Stack, pv *corev1.PersistentVolume) func() []string {
	t.Helper()
	w, err := s.Client().CoreV1().PersistentVolumes().Watch(ctx, metav1.ListOptions{
		FieldSelector:   "metadata.name=" + pv.Name,
		ResourceVersion: pv.ResourceVersion,
	})
	if err != nil {
		t.Fatalf("watch PV %s: %v", pv.Name, err)
	}
	t.Cleanup(w.Stop)
	var mu sync.Mutex
	phases := []string{string(pv.Status.Phase)}
	add := func(phase string) {
		mu.Lock()
		defer mu.Unlock()
		if phase != phases[len(phases)-1] {
			phases = append(phases, phase)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Deleted:
				add("Deleted")
				return
			case watch.Modified:
				if got, ok := ev.Object.(*corev1.PersistentVolume); ok {
					add(string(got.Status.Phase))
				}
			}
		}
	}()
	return func() []string {
		// Called once the PV is gone, so the Deleted event is on its way.
		select {
		case <-done:
		case <-time.After(waitTimeout):
			t.Errorf("the watch of PV %s saw no deletion", pv.Name)
		}
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(phases)
	}
}
