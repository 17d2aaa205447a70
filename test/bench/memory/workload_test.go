package memory

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// The pairs must look provisioned and bound to the sidecar, the binder and
// the protection controllers alike: anything missing would make one of them
// write to every pair as it starts, which is not what is measured.
func TestCachedPairIsProvisionedAndBound(t *testing.T) {
	const driver = "mock.csi-protect.io"
	claim := cachedClaim(42, driver)
	claim.UID = types.UID("2f1c6d1e-5b7a-4c1e-9d3b-0a6e1f2b3c4d")
	claim.ResourceVersion = "1234"
	pv := cachedVolume(42, driver, claim)

	if claim.Namespace != cachedNamespace || claim.Spec.VolumeName != pv.Name {
		t.Errorf("claim %s/%s names volume %q, want %q", claim.Namespace, claim.Name, claim.Spec.VolumeName, pv.Name)
	}
	if c := claim.Spec.StorageClassName; c == nil || *c != bench.ClassName || pv.Spec.StorageClassName != bench.ClassName {
		t.Errorf("classes: claim %v, PV %q; want %q", c, pv.Spec.StorageClassName, bench.ClassName)
	}
	for _, ann := range []string{bench.AnnStorageProvisioner, annBetaStorageProvisioner} {
		if claim.Annotations[ann] != driver {
			t.Errorf("claim annotation %s = %q, want the driver", ann, claim.Annotations[ann])
		}
	}
	if claim.Annotations[annBindCompleted] != "yes" {
		t.Errorf("claim lacks %s: the binder would bind it again", annBindCompleted)
	}

	if pv.Annotations[annProvisionedBy] != driver {
		t.Errorf("PV annotation %s = %q, want the driver", annProvisionedBy, pv.Annotations[annProvisionedBy])
	}
	csi := pv.Spec.CSI
	if csi == nil || csi.Driver != driver || csi.VolumeHandle == "" || len(csi.VolumeAttributes) < 3 {
		t.Fatalf("PV CSI source %+v: want the driver, a handle and a few attributes", csi)
	}
	if !strings.HasSuffix(csi.VolumeAttributes[provisionerIDKey], "-"+driver) {
		t.Errorf("provisioner identity %q does not end in the driver name", csi.VolumeAttributes[provisionerIDKey])
	}
	ref := pv.Spec.ClaimRef
	if ref == nil || ref.Kind != "PersistentVolumeClaim" || ref.Namespace != claim.Namespace || ref.Name != claim.Name || ref.UID != claim.UID || ref.ResourceVersion != "1234" {
		t.Errorf("claimRef %+v does not point at the claim", ref)
	}
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		t.Errorf("reclaim policy %q, want Delete", pv.Spec.PersistentVolumeReclaimPolicy)
	}
	for _, f := range []string{finalizerProvisioner, finalizerPVProtection} {
		if !slices.Contains(pv.Finalizers, f) {
			t.Errorf("PV lacks finalizer %s", f)
		}
	}
	if !slices.Contains(claim.Finalizers, finalizerPVCProtection) {
		t.Errorf("claim lacks finalizer %s", finalizerPVCProtection)
	}
	if q, want := pv.Spec.Capacity[corev1.ResourceStorage], claim.Spec.Resources.Requests[corev1.ResourceStorage]; q.Cmp(want) != 0 {
		t.Errorf("PV capacity %s, claim requests %s", q.String(), want.String())
	}

	boundClaimStatus(claim)
	boundVolumeStatus(pv)
	if claim.Status.Phase != corev1.ClaimBound || pv.Status.Phase != corev1.VolumeBound {
		t.Errorf("phases %s and %s, want Bound", claim.Status.Phase, pv.Status.Phase)
	}
	if q := claim.Status.Capacity[corev1.ResourceStorage]; q.Cmp(pv.Spec.Capacity[corev1.ResourceStorage]) != 0 {
		t.Errorf("claim status capacity %s, want the PV's", q.String())
	}
}

// The volume names are as long as the sidecar's "pvc-<UID>", so the caches
// hold what they would, and valid object names.
func TestCachedVolumeNames(t *testing.T) {
	seen := map[string]bool{}
	for _, i := range []int{0, 1, 9999, 123456} {
		name := cachedVolumeName(i)
		if len(name) != len("pvc-")+36 {
			t.Errorf("%q: %d characters, want %d", name, len(name), len("pvc-")+36)
		}
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("%q: %v", name, errs)
		}
		if errs := validation.IsDNS1123Subdomain(cachedClaimName(i)); len(errs) > 0 {
			t.Errorf("%q: %v", cachedClaimName(i), errs)
		}
		if seen[name] {
			t.Errorf("%q twice", name)
		}
		seen[name] = true
	}
}
