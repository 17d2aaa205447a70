package controller

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

// pendingClaim is a claim of class handed to driver by the PV controller,
// created age ago, changed by the mutators.
func pendingClaim(name, class, driver string, age time.Duration, now time.Time, mutate ...func(*v1.PersistentVolumeClaim)) *v1.PersistentVolumeClaim {
	claim := newClaim(name, "1Gi")
	claim.UID = types.UID("uid-" + name)
	claim.Spec.StorageClassName = &class
	claim.CreationTimestamp = metav1.NewTime(now.Add(-age))
	claim.Status.Phase = v1.ClaimPending
	metav1.SetMetaDataAnnotation(&claim.ObjectMeta, driverscope.AnnStorageProvisioner, driver)
	for _, m := range mutate {
		m(claim)
	}
	return claim
}

func selected(node string) func(*v1.PersistentVolumeClaim) {
	return func(c *v1.PersistentVolumeClaim) { metav1.SetMetaDataAnnotation(&c.ObjectMeta, annSelectedNode, node) }
}

func bindingClass(name string, mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
	class := newClass(nil)
	class.Name = name
	class.VolumeBindingMode = &mode
	return class
}

// Only claims that wait for this provisioner now count: Pending, not being
// deleted, handed to this driver, Immediate or with a node selected; the
// age is the oldest such claim's.
func TestPendingClaimsCountsWhatWaitsForThisProvisioner(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	deleted := metav1.NewTime(now)
	claims := []*v1.PersistentVolumeClaim{
		pendingClaim("immediate", "now", testDriver, 10*time.Minute, now),
		pendingClaim("selected", "later", testDriver, time.Hour, now, selected("node-1")),
		// Not counted:
		pendingClaim("waits-for-a-pod", "later", testDriver, 2*time.Hour, now),
		pendingClaim("another-driver", "now", "other.csi.io", 3*time.Hour, now),
		pendingClaim("bound", "now", testDriver, 4*time.Hour, now, func(c *v1.PersistentVolumeClaim) {
			c.Spec.VolumeName = "pv-1"
			c.Status.Phase = v1.ClaimBound
		}),
		pendingClaim("deleted", "now", testDriver, 5*time.Hour, now, func(c *v1.PersistentVolumeClaim) { c.DeletionTimestamp = &deleted }),
		pendingClaim("no-class-cached", "gone", testDriver, 6*time.Hour, now),
	}
	e := newEnv(t, envObjects{
		claims:  claims,
		classes: []*storagev1.StorageClass{bindingClass("now", storagev1.VolumeBindingImmediate), bindingClass("later", storagev1.VolumeBindingWaitForFirstConsumer)},
	})
	m := NewMetrics()
	m.PendingClaims.now = func() time.Time { return now }
	m.PendingClaims.track(e.prov)
	registry := testutil.NewRegistry(m)
	if got := testutil.Metric(t, registry, "csi_provisioner_pending_claims"); got != 2 {
		t.Errorf("pending claims %v, want 2 (immediate, selected)", got)
	}
	if got := testutil.Metric(t, registry, "csi_provisioner_oldest_pending_claim_age_seconds"); got != 3600 {
		t.Errorf("oldest pending claim age %v, want 3600 (selected)", got)
	}

	// Unregistered metrics of a provisioner that tracks nothing read 0.
	empty := testutil.NewRegistry(NewMetrics())
	if got := testutil.Metric(t, empty, "csi_provisioner_oldest_pending_claim_age_seconds"); got != 0 {
		t.Errorf("age %v without a provisioner, want 0", got)
	}
}

// With --node-deployment a sidecar counts its node's claims and the
// Immediate claims no node took yet, not another node's.
func TestPendingClaimsOfANode(t *testing.T) {
	now := time.Now()
	ne := newNodeEnv(t, envObjects{classes: []*storagev1.StorageClass{bindingClass("now", storagev1.VolumeBindingImmediate)}})
	for _, c := range []*v1.PersistentVolumeClaim{
		pendingClaim("mine", "now", testDriver, time.Minute, now, selected(ownNode)),
		pendingClaim("untaken", "now", testDriver, time.Minute, now),
		pendingClaim("theirs", "now", testDriver, time.Minute, now, selected("other-node")),
	} {
		if err := ne.claims.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := ne.prov.metrics.PendingClaims.count(); n != 2 {
		t.Errorf("pending claims %d, want 2 (mine, untaken)", n)
	}
	ne.prov.node.ImmediateBinding = false
	if n, _ := ne.prov.metrics.PendingClaims.count(); n != 1 {
		t.Errorf("pending claims %d without --node-deployment-immediate-binding, want 1 (mine)", n)
	}
}
