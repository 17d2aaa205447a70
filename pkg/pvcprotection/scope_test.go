package pvcprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

func TestScope(t *testing.T) {
	classes := []*storagev1.StorageClass{testutil.NewClass("ours", testDriver), testutil.NewClass("theirs", "other.example.com")}
	plain := func(name string) *v1.PersistentVolumeClaim {
		c := newClaim(name)
		c.Annotations = nil
		return c
	}
	annotated := plain("annotated")
	annotated.Annotations = map[string]string{driverscope.AnnStorageProvisioner: testDriver}
	beta := plain("beta")
	beta.Annotations = map[string]string{driverscope.AnnBetaStorageProvisioner: testDriver}
	byClass := plain("by-class")
	byClass.Spec.StorageClassName = ptr.To("ours")
	byLegacyClass := plain("by-legacy-class")
	byLegacyClass.Annotations = map[string]string{v1.BetaStorageClassAnnotation: "ours"}
	otherDriver := plain("other-driver")
	otherDriver.Annotations = map[string]string{driverscope.AnnStorageProvisioner: "other.example.com"}
	otherClass := plain("other-class")
	otherClass.Spec.StorageClassName = ptr.To("theirs")
	missingClass := plain("missing-class")
	missingClass.Spec.StorageClassName = ptr.To("gone")
	noClass := plain("no-class")
	noClass.Spec.StorageClassName = ptr.To("")

	tests := []struct {
		claim     *v1.PersistentVolumeClaim
		want, all bool
	}{
		{annotated, true, true},
		{beta, true, true},
		{byClass, true, true},
		{byLegacyClass, true, true},
		{otherDriver, false, true},
		{otherClass, false, true},
		{missingClass, false, true},
		{noClass, false, true},
		{plain("plain"), false, true},
	}
	for _, allClaims := range []bool{false, true} {
		e := newEnv(t, setup{classes: classes, allClaims: allClaims})
		for _, tc := range tests {
			want := tc.want
			if allClaims {
				want = tc.all
			}
			if got := e.ctrl.inScope(tc.claim); got != want {
				t.Errorf("allClaims=%v: inScope(%s) = %v, want %v", allClaims, tc.claim.Name, got, want)
			}
		}
	}
}

func TestOutOfScopeClaimIsNeverWritten(t *testing.T) {
	missing := newClaim("missing")
	missing.Annotations[driverscope.AnnStorageProvisioner] = "other.example.com"
	missing.Finalizers = nil
	unused := newClaim("unused", testutil.Deleting())
	unused.Annotations[driverscope.AnnStorageProvisioner] = "other.example.com"
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{missing, unused}})
	e.ctrl.onClaim(missing)
	e.ctrl.onClaim(unused)
	if q := e.queued(); len(q) != 0 {
		t.Errorf("queued %v", q)
	}
	e.mustSync("missing")
	e.mustSync("unused")
	if n := len(e.Client.Actions()); n != 0 {
		t.Fatalf("%d requests for claims of another driver: %v", n, e.Client.Actions())
	}
	if e.fresh.calls != 0 {
		t.Error("a claim out of scope needs no freshness check")
	}
}

func TestAllClaimsTakesOtherDriversClaims(t *testing.T) {
	claim := newClaim("unused", testutil.Deleting())
	claim.Annotations = nil
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, allClaims: true})
	e.mustSync("unused")
	if e.hasFinalizer("unused") {
		t.Fatal("with AllClaims an unused claim of any driver is released")
	}
}

// A driver that replaces an in-tree plugin protects claims of that plugin's
// classes, and of no other in-tree plugin's.
func TestMigratedDriverProtectsClaimsOfItsInTreeClasses(t *testing.T) {
	classes := []*storagev1.StorageClass{testutil.NewClass("gp2", "kubernetes.io/aws-ebs"), testutil.NewClass("standard", "kubernetes.io/gce-pd")}
	e := newEnv(t, setup{classes: classes, inTreePlugin: "kubernetes.io/aws-ebs"})
	for class, want := range map[string]bool{"gp2": true, "standard": false} {
		claim := newClaim("db")
		claim.Annotations = nil
		claim.Spec.StorageClassName = ptr.To(class)
		if got := e.ctrl.inScope(claim); got != want {
			t.Errorf("inScope(claim of %s) = %v, want %v", class, got, want)
		}
	}
}
