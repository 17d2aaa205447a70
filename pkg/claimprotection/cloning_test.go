package claimprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const pvcProtection = "kubernetes.io/pvc-protection"

// cloneOf is a claim that clones source and waits for its volume.
func cloneOf(source *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	clone := newClaim("copy")
	clone.Spec.DataSource = &v1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: source.Name}
	return clone
}

func protectedSource() *v1.PersistentVolumeClaim {
	return newClaim("golden", pvcProtection, provisionstate.CloningProtectionFinalizer)
}

func TestCloningProtectionStaysWhileACloneIsPending(t *testing.T) {
	source := protectedSource()
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{source, cloneOf(source)}})
	if err := e.sync(t, "golden"); err != nil {
		t.Fatal(err)
	}
	if !has(e.claim(t, "golden"), provisionstate.CloningProtectionFinalizer) {
		t.Fatal("the source lost its finalizer while a clone still reads it")
	}
}

func TestCloningProtectionGoesOnceTheCloneHasItsVolume(t *testing.T) {
	source := protectedSource()
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{source, cloneOf(source)}})
	e.run(t)
	testutil.Update(t, e.api(), "copy", func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeName = "pvc-uid-copy" })
	e.Eventually(t, "the finalizer to go", func() bool { return !has(e.claim(t, "golden"), provisionstate.CloningProtectionFinalizer) })
	if got := e.claim(t, "golden").Finalizers; len(got) != 1 || got[0] != pvcProtection {
		t.Fatalf("finalizers = %v, other finalizers must survive", got)
	}
}

func TestCloningProtectionGoesOnceTheCloneIsDeleted(t *testing.T) {
	source := protectedSource()
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{source, cloneOf(source)}})
	e.run(t)
	testutil.Delete(t, e.api(), "copy")
	e.Eventually(t, "the finalizer to go", func() bool { return !has(e.claim(t, "golden"), provisionstate.CloningProtectionFinalizer) })
}

func TestCloningProtectionFreesASourceWithoutClones(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{protectedSource()}})
	e.run(t)
	e.Eventually(t, "the finalizer to go", func() bool { return !has(e.claim(t, "golden"), provisionstate.CloningProtectionFinalizer) })
}

func TestCloningProtectionOfASourceInAnotherNamespaceIsIndexedByItsNamespace(t *testing.T) {
	source := protectedSource()
	clone := cloneOf(source)
	clone.Spec.DataSource = nil
	other := "elsewhere"
	clone.Spec.DataSourceRef = &v1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "golden", Namespace: &other}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{source, clone}})
	if err := e.sync(t, "golden"); err != nil {
		t.Fatal(err)
	}
	if has(e.claim(t, "golden"), provisionstate.CloningProtectionFinalizer) {
		t.Fatal("a clone of another namespace's golden claim held this one")
	}
}
