//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The mock driver takes the name of the AWS EBS CSI driver, which replaces
// the in-tree aws-ebs plugin: its volume ids need no format, unlike GCE PD's
// or Azure Disk's.
const (
	migratedDriver = "ebs.csi.aws.com"
	inTreePlugin   = "kubernetes.io/aws-ebs"
)

func inTreeProvisioner(sc *storagev1.StorageClass) { sc.Provisioner = inTreePlugin }

// csiOperations counts the sidecar's calls of a CSI method by their
// "migrated" label.
func csiOperations(ctx context.Context, url, method, migrated string) (float64, error) {
	return framework.ScrapeMetric(ctx, url, "csi_sidecar_operations_seconds", map[string]string{
		"method_name": "/csi.v1.Controller/" + method, "grpc_status_code": "OK", "migrated": migrated,
	})
}

func waitForMigratedOperations(ctx context.Context, t *testing.T, s *framework.Stack, url, method string, n float64) {
	t.Helper()
	waitFor(ctx, t, s, fmt.Sprintf("%v %s call(s) labelled migrated", n, method), func(ctx context.Context) (bool, error) {
		v, err := csiOperations(ctx, url, method, "true")
		if err != nil {
			return false, err
		}
		return v == n, fmt.Errorf("%v so far", v)
	})
}

// A claim of a StorageClass written for the in-tree aws-ebs plugin is
// handed by kube-controller-manager to the EBS CSI driver, provisioned by
// the sidecar through the mock under that name with the class translated,
// and its PV written as the in-tree plugin wrote them. Deleting the claim
// deletes the volume through DeleteVolume. The CSI call metrics say which
// calls were migrated.
func TestInTreeStorageClassIsProvisionedAndDeletedThroughTheDriver(t *testing.T) {
	httpFlag, metricsURL := metricsEndpoint(t)
	ctx, s := startStack(t, framework.StackOptions{
		Driver:  framework.DriverOptions{Name: migratedDriver},
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{httpFlag}},
	})
	createStorageClass(ctx, t, s, "gp3", inTreeProvisioner, withParameters(map[string]string{"type": "gp3", "fsType": "xfs"}))
	createClaim(ctx, t, s, "default", "legacy", "gp3")
	claim, pv := waitForClaimBound(ctx, t, s, "default", "legacy")

	if got := claim.Annotations["volume.kubernetes.io/storage-provisioner"]; got != migratedDriver {
		t.Errorf("kube-controller-manager handed the claim to %q, want %s", got, migratedDriver)
	}
	ebs := pv.Spec.AWSElasticBlockStore
	if pv.Spec.CSI != nil || ebs == nil {
		t.Fatalf("PV source %+v, want an in-tree awsElasticBlockStore", pv.Spec.PersistentVolumeSource)
	}
	if got := pv.Annotations["pv.kubernetes.io/provisioned-by"]; got != inTreePlugin {
		t.Errorf("PV provisioned-by %q, want the class's %s", got, inTreePlugin)
	}
	vol, ok := volumeByID(driverVolumes(t, s), ebs.VolumeID)
	if !ok {
		t.Fatalf("driver has no volume %s", ebs.VolumeID)
	}
	if want := map[string]string{"type": "gp3"}; !maps.Equal(vol.Parameters, want) {
		t.Errorf("driver got parameters %v, want the translated class's %v", vol.Parameters, want)
	}
	if ebs.FSType != "xfs" {
		t.Errorf("PV fsType %q, want xfs", ebs.FSType)
	}
	waitForMigratedOperations(ctx, t, s, metricsURL, "CreateVolume", 1)

	deleteClaim(ctx, t, s, "default", "legacy")
	waitForPVGone(ctx, t, s, pv.Name)
	if vols := driverVolumes(t, s); len(vols) != 0 {
		t.Errorf("driver still holds %+v after the claim was deleted", vols)
	}
	waitForMigratedOperations(ctx, t, s, metricsURL, "DeleteVolume", 1)
	if v, err := csiOperations(ctx, metricsURL, "ControllerGetCapabilities", "false"); err != nil || v < 1 {
		t.Errorf("calls of no in-tree object are labelled migrated=false: got %v, %v", v, err)
	}
}

// A PV the in-tree plugin provisioned before migration (an
// awsElasticBlockStore source, reclaim policy Delete) is deleted through
// DeleteVolume with the volume id the translation gives, once its claim is
// deleted. (The id is a bare one: the aws:// form only admits EBS's vol-
// ids.)
func TestPreMigrationInTreePVIsDeletedThroughTheDriver(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{Driver: framework.DriverOptions{Name: migratedDriver}})
	createStorageClass(ctx, t, s, "gp2", inTreeProvisioner)
	vol := createVolumeBehindTheSidecar(ctx, t, s.Socket(), "kubernetes-dynamic-pvc-old", "", 1<<30)

	class := "gp2"
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-old", Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": inTreePlugin}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: vol.VolumeId, FSType: "ext4"},
			},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              class,
			ClaimRef:                      &corev1.ObjectReference{Namespace: "default", Name: "old"},
		},
	}
	if _, err := s.Client().CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createClaim(ctx, t, s, "default", "old", class, func(pvc *corev1.PersistentVolumeClaim) { pvc.Spec.VolumeName = pv.Name })
	waitForClaimBound(ctx, t, s, "default", "old")

	deleteClaim(ctx, t, s, "default", "old")
	waitForPVGone(ctx, t, s, pv.Name)
	if vols := driverVolumes(t, s); len(vols) != 0 {
		t.Errorf("driver still holds %+v after the in-tree PV was deleted", vols)
	}
}
