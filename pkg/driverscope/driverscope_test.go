package driverscope

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	ebsDriver = "ebs.csi.aws.com"
	ebsPlugin = "kubernetes.io/aws-ebs"
	other     = "other.example.com"
)

var (
	migrated = Driver{Name: ebsDriver, InTreePlugin: ebsPlugin}
	csiOnly  = Driver{Name: ebsDriver}
)

func claim(annotations map[string]string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "apps", Annotations: annotations}}
}

func csiVolume(driver string, annotations map[string]string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv", Annotations: annotations},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "vol-1"},
		}},
	}
}

func ebsVolume(annotations map[string]string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv", Annotations: annotations},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"},
		}},
	}
}

func gcePDVolume(annotations map[string]string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv", Annotations: annotations},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "disk-1"},
		}},
	}
}

func hostPathVolume() *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv"},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			HostPath: &v1.HostPathVolumeSource{Path: "/data"},
		}},
	}
}

// Every question of the rule, for each kind of object: whether it is the
// driver's (ServesClaim, IsProvisioner, ServesVolume), whether its volume
// is the driver's to delete (DeletesVolume), and whose it says it is
// (ClaimProvisioner, VolumeProvisioner).
func TestWhoseIsIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		driver Driver
		claim  *v1.PersistentVolumeClaim
		class  *string
		pv     *v1.PersistentVolume
		// ours is ServesClaim, IsProvisioner or ServesVolume.
		ours bool
		// deletes is DeletesVolume, for volumes.
		deletes bool
		// provisioner is ClaimProvisioner or VolumeProvisioner.
		provisioner string
	}{
		{name: "claim named by the GA annotation", driver: csiOnly,
			claim: claim(map[string]string{AnnStorageProvisioner: ebsDriver}), ours: true, provisioner: ebsDriver},
		{name: "claim named by the beta annotation alone", driver: csiOnly,
			claim: claim(map[string]string{AnnBetaStorageProvisioner: ebsDriver}), ours: true, provisioner: ebsDriver},
		{name: "claim named by both annotations, as the PV controller writes them", driver: csiOnly,
			claim: claim(map[string]string{AnnStorageProvisioner: ebsDriver, AnnBetaStorageProvisioner: ebsDriver}), ours: true, provisioner: ebsDriver},
		{name: "claim whose GA annotation names another driver: it wins over the beta one", driver: csiOnly,
			claim: claim(map[string]string{AnnStorageProvisioner: other, AnnBetaStorageProvisioner: ebsDriver}), provisioner: other},
		{name: "claim whose GA annotation is empty: it wins over the beta one", driver: csiOnly,
			claim: claim(map[string]string{AnnStorageProvisioner: "", AnnBetaStorageProvisioner: ebsDriver})},
		{name: "claim of another driver", driver: migrated,
			claim: claim(map[string]string{AnnStorageProvisioner: other, AnnBetaStorageProvisioner: other}), provisioner: other},
		{name: "claim of the in-tree plugin migrated to the driver", driver: migrated,
			claim: claim(map[string]string{AnnStorageProvisioner: ebsPlugin, AnnMigratedTo: ebsDriver}), ours: true, provisioner: ebsPlugin},
		{name: "claim migrated to the driver, told without the driver's in-tree plugin", driver: csiOnly,
			claim: claim(map[string]string{AnnStorageProvisioner: ebsPlugin, AnnMigratedTo: ebsDriver}), ours: true, provisioner: ebsPlugin},
		{name: "claim of the in-tree plugin not migrated", driver: migrated,
			claim: claim(map[string]string{AnnStorageProvisioner: ebsPlugin}), provisioner: ebsPlugin},
		{name: "claim migrated to another driver", driver: migrated,
			claim: claim(map[string]string{AnnStorageProvisioner: "kubernetes.io/gce-pd", AnnMigratedTo: "pd.csi.storage.gke.io"}), provisioner: "kubernetes.io/gce-pd"},
		{name: "claim no provisioner was named for yet", driver: migrated, claim: claim(nil)},

		{name: "class of the driver", driver: migrated, class: ptr.To(ebsDriver), ours: true},
		{name: "class of the in-tree plugin the driver replaces", driver: migrated, class: ptr.To(ebsPlugin), ours: true},
		{name: "class of the in-tree plugin, the driver replacing none", driver: csiOnly, class: ptr.To(ebsPlugin)},
		{name: "class of another provisioner", driver: migrated, class: ptr.To(other)},
		{name: "class without a provisioner, the driver replacing no plugin", driver: csiOnly, class: ptr.To("")},

		{name: "CSI volume the driver provisioned", driver: migrated,
			pv: csiVolume(ebsDriver, map[string]string{AnnProvisionedBy: ebsDriver}), ours: true, deletes: true, provisioner: ebsDriver},
		{name: "static CSI volume of the driver", driver: migrated,
			pv: csiVolume(ebsDriver, nil), ours: true, deletes: true, provisioner: ebsDriver},
		{name: "CSI volume of another driver", driver: migrated,
			pv: csiVolume(other, map[string]string{AnnProvisionedBy: other}), provisioner: other},
		{name: "CSI volume of another driver, whatever its provisioned-by says", driver: migrated,
			pv: csiVolume(other, map[string]string{AnnProvisionedBy: ebsDriver}), provisioner: other},
		{name: "in-tree volume the plugin the driver replaces provisioned", driver: migrated,
			pv: ebsVolume(map[string]string{AnnProvisionedBy: ebsPlugin}), ours: true, deletes: true, provisioner: ebsPlugin},
		{name: "static in-tree volume of the plugin the driver replaces: served, not deleted", driver: migrated,
			pv: ebsVolume(nil), ours: true},
		{name: "in-tree volume of the plugin, the driver replacing none", driver: csiOnly,
			pv: ebsVolume(map[string]string{AnnProvisionedBy: ebsPlugin}), provisioner: ebsPlugin},
		{name: "in-tree volume of another plugin", driver: migrated,
			pv: gcePDVolume(map[string]string{AnnProvisionedBy: "kubernetes.io/gce-pd"}), provisioner: "kubernetes.io/gce-pd"},
		{name: "volume of a source no CSI driver replaces", driver: migrated, pv: hostPathVolume()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.claim != nil:
				if got := tc.driver.ServesClaim(tc.claim); got != tc.ours {
					t.Errorf("ServesClaim = %v, want %v", got, tc.ours)
				}
				if got := ClaimProvisioner(tc.claim); got != tc.provisioner {
					t.Errorf("ClaimProvisioner = %q, want %q", got, tc.provisioner)
				}
			case tc.class != nil:
				if got := tc.driver.IsProvisioner(*tc.class); got != tc.ours {
					t.Errorf("IsProvisioner(%q) = %v, want %v", *tc.class, got, tc.ours)
				}
			default:
				if got := tc.driver.ServesVolume(tc.pv); got != tc.ours {
					t.Errorf("ServesVolume = %v, want %v", got, tc.ours)
				}
				if got := tc.driver.DeletesVolume(tc.pv); got != tc.deletes {
					t.Errorf("DeletesVolume = %v, want %v", got, tc.deletes)
				}
				if got := VolumeProvisioner(tc.pv); got != tc.provisioner {
					t.Errorf("VolumeProvisioner = %q, want %q", got, tc.provisioner)
				}
			}
		})
	}
}

// A claim's class is read as Kubernetes reads it: the beta annotation
// first, even empty, then spec.storageClassName.
func TestClaimClassName(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		spec        *string
		want        string
	}{
		{name: "spec", spec: ptr.To("fast"), want: "fast"},
		{name: "beta annotation", annotations: map[string]string{v1.BetaStorageClassAnnotation: "slow"}, want: "slow"},
		{name: "beta annotation over spec", annotations: map[string]string{v1.BetaStorageClassAnnotation: "slow"}, spec: ptr.To("fast"), want: "slow"},
		{name: "empty beta annotation over spec", annotations: map[string]string{v1.BetaStorageClassAnnotation: ""}, spec: ptr.To("fast"), want: ""},
		{name: "empty spec", spec: ptr.To(""), want: ""},
		{name: "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := claim(tc.annotations)
			c.Spec.StorageClassName = tc.spec
			if got := ClaimClassName(c); got != tc.want {
				t.Errorf("ClaimClassName = %q, want %q", got, tc.want)
			}
		})
	}
}
