package claimwatch

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/test/bench"
)

func claim(name string, phase corev1.PersistentVolumeClaimPhase, ann map[string]string, finalizers ...string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Annotations: ann, Finalizers: finalizers},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: phase},
	}
}

func pv(name, ns, claimName string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PersistentVolumeSpec{ClaimRef: &corev1.ObjectReference{Namespace: ns, Name: claimName}},
	}
}

// TestTrackerSteps feeds the handlers one claim's life and checks that each
// step is recorded once, and that PVs of other namespaces are ignored.
func TestTrackerSteps(t *testing.T) {
	tr := New("ns")
	names := []string{"a"}
	sent := time.Now()
	tr.MarkCreateSent("a", sent)
	tr.MarkCreated("a", sent.Add(time.Millisecond))

	tr.onClaim(claim("a", corev1.ClaimPending, nil))
	if c := tr.Snapshot(names)[0]; !c.HandedOver.IsZero() || IsBound(&c) {
		t.Fatalf("pending claim without annotation: %+v", c)
	}
	tr.onClaim(claim("a", corev1.ClaimPending, map[string]string{bench.AnnStorageProvisioner: "x"}))
	tr.onPV(pv("pv-a", "ns", "a"))
	tr.onPV(pv("pv-other", "other", "a"))
	if got := tr.LivePVs(); got != 1 {
		t.Fatalf("LivePVs = %d, want 1", got)
	}
	tr.onClaim(claim("a", corev1.ClaimBound, nil, provisionstate.ProvisioningProtectionFinalizer))
	if tr.Count(names, IsBound) != 1 || tr.Count(names, IsSettled) != 0 || tr.Count(names, IsPVSeen) != 1 {
		t.Fatalf("bound with finalizer: %+v", tr.Snapshot(names)[0])
	}
	bound := tr.Snapshot(names)[0].Bound
	tr.onClaim(claim("a", corev1.ClaimBound, nil))
	c := tr.Snapshot(names)[0]
	if !IsSettled(&c) || !c.Bound.Equal(bound) || !c.CreateSent.Equal(sent) {
		t.Fatalf("settled: %+v", c)
	}

	tr.MarkDeleteSent("a", time.Now())
	tr.claimHandler().OnDelete(cache.DeletedFinalStateUnknown{Obj: claim("a", corev1.ClaimBound, nil)})
	tr.onPVDeleted(pv("pv-a", "ns", "a"))
	c = tr.Snapshot(names)[0]
	if !IsGone(&c) || !IsPVGone(&c) || c.DeleteSent.IsZero() || tr.LivePVs() != 0 {
		t.Fatalf("deleted: %+v, %d PVs left", c, tr.LivePVs())
	}
	if z := tr.Snapshot([]string{"never"})[0]; z != (ClaimTimes{}) {
		t.Fatalf("unseen claim: %+v", z)
	}
}
