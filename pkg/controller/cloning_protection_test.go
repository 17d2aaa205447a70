package controller

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
)

// runCloningProtection starts the protection controller on a fake clientset
// holding claims.
func runCloningProtection(t *testing.T, claims ...*v1.PersistentVolumeClaim) *fake.Clientset {
	t.Helper()
	return startProtection(t, protectionSetup{claims: claims}).client
}

func sourceFinalizers(t *testing.T, client *fake.Clientset) []string {
	t.Helper()
	got, err := client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), "golden", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Finalizers
}

func waitForFinalizer(t *testing.T, client *fake.Clientset, present bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		got := sourceFinalizers(t, client)
		has := false
		for _, f := range got {
			has = has || f == CloningProtectionFinalizer
		}
		return has == present, nil
	})
	if err != nil {
		t.Fatalf("cloning-protection finalizer present=%v never reached; finalizers %v", present, sourceFinalizers(t, client))
	}
}

func TestCloningProtectionKeepsFinalizerWhileCloneIsPending(t *testing.T) {
	source, _, clone := cloneFixture()
	source.Finalizers = []string{"kubernetes.io/pvc-protection", CloningProtectionFinalizer}
	client := runCloningProtection(t, source, clone)
	// Give the controller time to act wrongly; the finalizer must stay.
	time.Sleep(300 * time.Millisecond)
	waitForFinalizer(t, client, true)
}

func TestCloningProtectionRemovesFinalizerWhenCloneIsBound(t *testing.T) {
	source, _, clone := cloneFixture()
	source.Finalizers = []string{"kubernetes.io/pvc-protection", CloningProtectionFinalizer}
	client := runCloningProtection(t, source, clone)
	waitForFinalizer(t, client, true)

	clone.Spec.VolumeName = "pvc-clone"
	if _, err := client.CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), clone, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForFinalizer(t, client, false)
	if got := sourceFinalizers(t, client); len(got) != 1 || got[0] != "kubernetes.io/pvc-protection" {
		t.Fatalf("finalizers = %v, other finalizers must survive", got)
	}
}

func TestCloningProtectionRemovesFinalizerWhenCloneIsDeleted(t *testing.T) {
	source, _, clone := cloneFixture()
	source.Finalizers = []string{CloningProtectionFinalizer}
	client := runCloningProtection(t, source, clone)
	waitForFinalizer(t, client, true)
	if err := client.CoreV1().PersistentVolumeClaims(testNamespace).Delete(context.Background(), "copy", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForFinalizer(t, client, false)
}

func TestCloningProtectionFreesSourceWithoutClones(t *testing.T) {
	source, _, _ := cloneFixture()
	source.Finalizers = []string{CloningProtectionFinalizer}
	client := runCloningProtection(t, source)
	waitForFinalizer(t, client, false)
}
