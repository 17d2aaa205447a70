package claimconditions

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The patch names the condition alone, pinned to the version and UID.
func TestPatchTouchesTheConditionAlonePinned(t *testing.T) {
	claim := newClaim("db", "fast")
	claim.ResourceVersion = "42"
	set, err := conditionPatch(claim, &v1.PersistentVolumeClaimCondition{
		Type: ConditionType, Status: v1.ConditionTrue, Reason: ReasonProvisioning, Message: msgProvisioning,
		LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"resourceVersion":"42","uid":"uid-db"},"status":{"conditions":[{"lastTransitionTime":"2026-01-02T03:04:05Z","message":"` +
		msgProvisioning + `","reason":"Provisioning","status":"True","type":"provisioner.storage.kubernetes.io/Provisioning"}]}}`
	if string(set) != want {
		t.Errorf("set patch\n%s\nwant\n%s", set, want)
	}
	clear, err := conditionPatch(claim, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"metadata":{"resourceVersion":"42","uid":"uid-db"},"status":{"conditions":[{"$patch":"delete","type":"provisioner.storage.kubernetes.io/Provisioning"}]}}`
	if string(clear) != want {
		t.Errorf("clear patch\n%s\nwant\n%s", clear, want)
	}
	claim.ResourceVersion = ""
	if _, err := conditionPatch(claim, nil); err == nil {
		t.Error("a patch without a version to pin to was made")
	}
}

// A claim with everything a cluster puts on one keeps all of it through
// every write, though the cache the controller decides on holds only the
// phase of its status: only the condition changes.
func TestWritesLeaveEverythingElseAsItIs(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{fullClaim()}, trim: true})
	original := e.claim(t, "db")
	uid := original.UID
	check := func(step string, wantReason string) {
		t.Helper()
		got := e.claim(t, "db")
		if c := conditionOf(got); (c == nil) != (wantReason == "") || (c != nil && c.Reason != wantReason) {
			t.Fatalf("%s: condition %+v, want reason %q", step, c, wantReason)
		}
		if before, after := withoutOwn(original), withoutOwn(got); !equality.Semantic.DeepEqual(before, after) {
			t.Errorf("%s changed more than the condition:\n%s", step, diff.Diff(before, after))
		}
	}

	e.mustSync(t, "db")
	check("setting WaitingForFirstConsumer", ReasonWaitingForFirstConsumer)

	testutil.Update(t, e.api(), "db", func(c *v1.PersistentVolumeClaim) { c.Annotations[provisionstate.AnnSelectedNode] = "node-1" })
	original = e.claim(t, "db")
	e.calls.Begin(uid)
	e.mustSync(t, "db")
	check("replacing it with Provisioning", ReasonProvisioning)

	e.errs.Record(uid, provisionstate.DriverError{Code: codes.ResourceExhausted, Message: "full"})
	e.calls.End(uid, provisionstate.Final)
	e.mustSync(t, "db")
	check("replacing it with DriverError", ReasonDriverError)

	// The scheduler tries another node: the claim waits again, then
	// nothing is known.
	testutil.Update(t, e.api(), "db", func(c *v1.PersistentVolumeClaim) { delete(c.Annotations, provisionstate.AnnSelectedNode) })
	original = e.claim(t, "db")
	e.errs.Forget(uid)
	e.mustSync(t, "db")
	check("back to WaitingForFirstConsumer", ReasonWaitingForFirstConsumer)
	testutil.Update(t, e.api(), "db", func(c *v1.PersistentVolumeClaim) { c.Annotations[provisionstate.AnnSelectedNode] = "node-2" })
	original = e.claim(t, "db")
	e.mustSync(t, "db")
	check("clearing it", "")
}

// A write decided on a copy the claim has moved past conflicts, writes
// nothing, and is decided again on the fresh claim.
func TestConflictingWriteIsDecidedAgainOnTheFreshClaim(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast")}})
	uid := e.claim(t, "db").UID
	e.calls.Begin(uid)
	// The binder (say) writes the claim's status between the sync's read
	// of the cache and its write.
	e.changeBeforeNextStatusPatch(t, "db", func(c *v1.PersistentVolumeClaim) {
		c.Status.Conditions = append(c.Status.Conditions, v1.PersistentVolumeClaimCondition{Type: "Other", Status: v1.ConditionTrue})
	})
	if _, err := e.sync(t, "db"); !apierrors.IsConflict(err) {
		t.Fatalf("sync: %v, want a conflict", err)
	}
	if got := e.writes(t, ReasonProvisioning, ResultConflict); got != 1 {
		t.Fatalf("writes_total{result=conflict} = %v, want 1", got)
	}
	if c := e.condition(t, "db"); c != nil {
		t.Fatalf("a conflicting write changed the claim: %+v", c)
	}
	e.mustSync(t, "db")
	got := e.claim(t, "db")
	if c := conditionOf(got); c == nil || c.Reason != ReasonProvisioning || len(got.Status.Conditions) != 2 {
		t.Errorf("conditions %+v, want the other one and Provisioning", got.Status.Conditions)
	}
	if got := e.writes(t, ReasonProvisioning, ResultSuccess); got != 1 {
		t.Errorf("writes_total{result=success} = %v, want 1", got)
	}
}

// fullClaim is a pending claim of a WaitForFirstConsumer class with
// everything a cluster may put on a claim.
func fullClaim() *v1.PersistentVolumeClaim {
	c := newClaim("db", "local")
	c.Labels = map[string]string{"app": "db"}
	c.Annotations = map[string]string{
		v1.LastAppliedConfigAnnotation: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"db"}}`,
		"example.com/owner":            "team-a",
	}
	c.Finalizers = []string{"kubernetes.io/pvc-protection", "example.com/backup"}
	c.Spec.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce, v1.ReadOnlyMany}
	attributes := "gold"
	c.Spec.VolumeAttributesClassName = &attributes
	c.Status = v1.PersistentVolumeClaimStatus{
		Phase:                     v1.ClaimPending,
		AccessModes:               []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
		Capacity:                  v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
		AllocatedResources:        v1.ResourceList{v1.ResourceStorage: resource.MustParse("2Gi")},
		AllocatedResourceStatuses: map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimControllerResizeInProgress},
		Conditions: []v1.PersistentVolumeClaimCondition{
			{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue, Reason: "Resizing", Message: "resizing"},
			{Type: v1.PersistentVolumeClaimVolumeModifyingVolume, Status: v1.ConditionTrue},
		},
		CurrentVolumeAttributesClassName: &attributes,
		ModifyVolumeStatus:               &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "silver", Status: v1.PersistentVolumeClaimModifyVolumeInProgress},
	}
	return c
}

// withoutOwn is claim without this controller's condition and its version
// (and the fake's record of who wrote which field).
func withoutOwn(claim *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	c := claim.DeepCopy()
	c.ResourceVersion = ""
	c.ManagedFields = nil
	var kept []v1.PersistentVolumeClaimCondition
	for _, cond := range c.Status.Conditions {
		if cond.Type != ConditionType {
			kept = append(kept, cond)
		}
	}
	c.Status.Conditions = kept
	return c
}
