package recyclebin

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const driver = "mock.csi.example.com"

func retainedVolume() *v1.PersistentVolume {
	pv := releasedVolume(map[string]string{AnnRetainedUntil: now.Format("2006-01-02T15:04:05Z")})
	pv.Spec.StorageClassName = "fast"
	pv.Spec.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce, v1.ReadOnlyMany}
	pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")}
	pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "vol-1"}
	return pv
}

// claimFor is a pending claim that fits pv and names it.
func claimFor(pv *v1.PersistentVolume) *v1.PersistentVolumeClaim {
	return newClaim(newNamespace, newClaimName, newUID, pv.Name)
}

func TestAClaimThatAsksForNothingTheVolumeLacksFits(t *testing.T) {
	pv := retainedVolume()
	smaller := claimFor(pv)
	smaller.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("1Gi")
	for name, claim := range map[string]*v1.PersistentVolumeClaim{"the same size": claimFor(pv), "smaller": smaller} {
		if err := Fits(pv, claim, FitOptions{Driver: driver}); err != nil {
			t.Errorf("%s: Fits = %v; want nil", name, err)
		}
	}
}

func TestAMisfitClaimIsRefusedWithWhatDoesNotFit(t *testing.T) {
	cases := []struct {
		name   string
		change func(pv *v1.PersistentVolume, claim *v1.PersistentVolumeClaim)
		want   string
	}{
		{"larger", func(_ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("11Gi")
		}, "asks for 11Gi, the volume has 10Gi"},
		{"another access mode", func(_ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.Spec.AccessModes = append(c.Spec.AccessModes, v1.ReadWriteMany)
		}, "access mode ReadWriteMany"},
		{"block on a filesystem volume", func(_ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.Spec.VolumeMode = ptr.To(v1.PersistentVolumeBlock)
		}, "volume mode Block, the volume is Filesystem"},
		{"another class", func(_ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.Spec.StorageClassName = ptr.To("slow")
		}, `StorageClass is "slow", the volume's "fast"`},
		{"another driver's volume", func(pv *v1.PersistentVolume, _ *v1.PersistentVolumeClaim) {
			pv.Spec.CSI.Driver = "other.csi.example.com"
		}, "not one of driver " + driver},
		{"another volume named", func(_ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.Spec.VolumeName = "pvc-2"
		}, `spec.volumeName is "pvc-2"`},
		{"bound already", func(_ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.Status.Phase = v1.ClaimBound
		}, "bound already"},
		{"being deleted", func(_ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.DeletionTimestamp = &metav1.Time{Time: now}
		}, "being deleted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pv := retainedVolume()
			claim := claimFor(pv)
			tc.change(pv, claim)
			err := Fits(pv, claim, FitOptions{Driver: driver})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Fits = %v; want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestAnInTreeVolumeFitsThroughItsPlugin(t *testing.T) {
	pv := retainedVolume()
	pv.Spec.CSI = nil
	pv.Annotations["pv.kubernetes.io/provisioned-by"] = "kubernetes.io/aws-ebs"
	claim := claimFor(pv)
	if err := Fits(pv, claim, FitOptions{Driver: driver, InTreePlugin: "kubernetes.io/aws-ebs"}); err != nil {
		t.Fatalf("Fits = %v; want nil under migration", err)
	}
	if err := Fits(pv, claim, FitOptions{Driver: driver}); err == nil {
		t.Fatal("Fits = nil without migration; want the driver misfit")
	}
}

func TestRestoreRequest(t *testing.T) {
	cases := []struct {
		value     string
		want      string
		wantError bool
	}{
		{"restored/data-again", "restored/data-again", false},
		{"data-again", "", true},
		{"restored/", "", true},
		{"/data-again", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			name, asked, err := RestoreRequest(releasedVolume(map[string]string{AnnRestoreTo: tc.value}))
			if !asked || (err != nil) != tc.wantError || (err == nil && name.String() != tc.want) {
				t.Fatalf("RestoreRequest = %v, %v, %v; want %q, error %v", name, asked, err, tc.want, tc.wantError)
			}
		})
	}
	if _, asked, err := RestoreRequest(releasedVolume(nil)); asked || err != nil {
		t.Fatalf("no annotation: asked %v, %v; want nothing", asked, err)
	}
}
