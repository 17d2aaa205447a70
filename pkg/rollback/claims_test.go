package rollback

import (
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// A Bound claim loses the finalizer and the records written with it in one
// update, and keeps everything else it carries.
func TestBoundClaimLosesTheFinalizerAndItsRecordsInOneUpdate(t *testing.T) {
	e := newEnv(protected(claim("data-0", v1.ClaimBound), provisionstate.RequestRecords...))
	before := e.claim(t, "data-0")

	r := e.run(t, ModeClear)

	f := only(t, r, kindClaim, "shop/data-0")
	requireAction(t, f, Cleared, "")
	want := "finalizer provisioning-protection; records restored-snapshot-handle, volume-name-template, parameter-claim-metadata"
	if f.What != want || f.Driver != driver {
		t.Errorf("what %q, driver %q; want %q, %q", f.What, f.Driver, want, driver)
	}
	writes := e.writes()
	if len(writes) != 1 || writes[0].GetVerb() != "update" || writes[0].GetSubresource() != "" {
		t.Fatalf("writes %v, want one update of the claim", writes)
	}
	if rv := writes[0].(k8stesting.UpdateAction).GetObject().(*v1.PersistentVolumeClaim).ResourceVersion; rv != before.ResourceVersion {
		t.Errorf("update pinned to %q, the claim was at %q", rv, before.ResourceVersion)
	}
	after := e.claim(t, "data-0")
	wantFinalizers := []string{"kubernetes.io/pvc-protection", otherFinalizer}
	if !slices.Equal(after.Finalizers, wantFinalizers) {
		t.Errorf("finalizers %q, want %q", after.Finalizers, wantFinalizers)
	}
	wantAnnotations := maps.Clone(before.Annotations)
	for _, key := range provisionstate.RequestRecords {
		delete(wantAnnotations, key)
	}
	if !maps.Equal(after.Annotations, wantAnnotations) {
		t.Errorf("annotations %q, want %q", after.Annotations, wantAnnotations)
	}
	if !maps.Equal(after.Labels, before.Labels) || !apiequality.Semantic.DeepEqual(after.Spec, before.Spec) || !apiequality.Semantic.DeepEqual(after.Status, before.Status) {
		t.Errorf("labels, spec or status changed:\n%+v\n%+v", before, after)
	}
}

// A Bound claim being deleted has its PV: the finalizer goes, as the
// sidecar removes it then, or upstream would keep the claim Terminating.
func TestBoundClaimBeingDeletedIsReleased(t *testing.T) {
	e := newEnv(deleting(protected(claim("data-0", v1.ClaimBound))))
	r := e.run(t, ModeClear)
	requireAction(t, only(t, r, kindClaim, "shop/data-0"), Cleared, "")
	if got := e.claim(t, "data-0").Finalizers; slices.Contains(got, provisionstate.ProvisioningProtectionFinalizer) {
		t.Errorf("finalizers %q", got)
	}
}

// A Lost claim had its volume: no CreateVolume can be running for it.
func TestLostClaimIsReleased(t *testing.T) {
	e := newEnv(protected(claim("lost", v1.ClaimLost)))
	requireAction(t, only(t, e.run(t, ModeClear), kindClaim, "shop/lost"), Cleared, "")
}

// A pending claim keeps its finalizer: its CreateVolume may be running or in
// doubt. With records, the refusal says how upstream's retry would differ.
func TestPendingClaimIsLeftUntilItIsBound(t *testing.T) {
	e := newEnv(
		protected(claim("plain", v1.ClaimPending)),
		protected(claim("named", v1.ClaimPending), provisionstate.AnnVolumeNameTemplate),
		protected(claim("tagged", v1.ClaimPending), provisionstate.AnnVolumeNameTemplate, provisionstate.AnnParameterClaimMetadata),
	)
	r := e.run(t, ModeClear)

	plain := only(t, r, kindClaim, "shop/plain")
	requireAction(t, plain, NeedsYou, "provisioning in progress: wait until it is Bound")
	if plain.Action.Why != "provisioning in progress: wait until it is Bound, then run this again" {
		t.Errorf("a claim without records: %q", plain.Action.Why)
	}
	requireAction(t, only(t, r, kindClaim, "shop/named"), NeedsYou, "upstream would retry it under the PV's name instead of the recorded volume name, leaving behind")
	requireAction(t, only(t, r, kindClaim, "shop/tagged"), NeedsYou, "instead of the recorded volume name and with the class's claim tokens unrendered")
	if w := e.writes(); len(w) != 0 {
		t.Errorf("pending claims were written: %v", w)
	}
}

// A claim deleted before it was Bound stays held: the sidecar is deleting
// the volume made for it, which a swap now may leak.
func TestClaimBeingDeletedKeepsItsFinalizer(t *testing.T) {
	abandoned := deleting(protected(claim("gone", v1.ClaimPending)))
	abandoned.Annotations["provisioner.storage.kubernetes.io/abandoned-volume"] = "vol-123"
	e := newEnv(abandoned)

	r := e.run(t, ModeClear)

	f := only(t, r, kindClaim, "shop/gone")
	requireAction(t, f, NeedsYou, "the volume made for it is being deleted by the sidecar: swapping back now may leak it")
	if want := "finalizer provisioning-protection; its volume vol-123 is being deleted"; f.What != want {
		t.Errorf("what %q, want %q", f.What, want)
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("written: %v", w)
	}
}

// A claim whose CreateVolume may have made a volume under a template's
// name says that name: the operator looks for it in the backend.
func TestUnsettledClaimNamesItsRecordedBackendVolume(t *testing.T) {
	namer, err := volumename.New(volumename.Options{Prefix: "pvc", Template: "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", MaxLength: 63})
	if err != nil {
		t.Fatal(err)
	}
	c := deleting(protected(claim("gone", v1.ClaimPending)))
	c.UID = "3f1c9a2b-0000-4000-8000-000000000000"
	c.Annotations[provisionstate.AnnVolumeNameTemplate] = namer.Current().Record()
	f := only(t, newEnv(c).run(t, ModeReport), kindClaim, "shop/gone")
	if want := "finalizer provisioning-protection; records volume-name-template; backend volume name shop-gone-3f1c9a2b"; f.What != want {
		t.Errorf("what %q\nwant %q", f.What, want)
	}
}

// Records without the finalizer should not exist; on a Bound claim they
// are cleared, on a pending one left until it is Bound.
func TestRecordsWithoutTheFinalizer(t *testing.T) {
	e := newEnv(
		recorded(claim("bound", v1.ClaimBound), provisionstate.AnnVolumeNameTemplate),
		recorded(claim("pending", v1.ClaimPending), provisionstate.AnnParameterClaimMetadata),
	)
	r := e.run(t, ModeClear)

	bound := only(t, r, kindClaim, "shop/bound")
	requireAction(t, bound, Cleared, "")
	if want := "records volume-name-template; without the finalizer"; bound.What != want {
		t.Errorf("what %q, want %q", bound.What, want)
	}
	if _, ok := e.claim(t, "bound").Annotations[provisionstate.AnnVolumeNameTemplate]; ok {
		t.Error("the record is still there")
	}
	requireAction(t, only(t, r, kindClaim, "shop/pending"), NeedsYou, "not Bound yet")
	if _, ok := e.claim(t, "pending").Annotations[provisionstate.AnnParameterClaimMetadata]; !ok {
		t.Error("the pending claim's record was removed")
	}
}

// A claim with nothing of this project's is not in the report.
func TestClaimWithoutProtectionIsNotReported(t *testing.T) {
	e := newEnv(claim("data-0", v1.ClaimBound), claim("new", v1.ClaimPending))
	if r := e.run(t, ModeClear); len(r.Findings) != 0 {
		t.Errorf("findings %+v", r.Findings)
	}
}
