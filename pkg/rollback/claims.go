package rollback

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// decision is what the check makes of one aspect of an object: what it
// found and, unless it is safe to clear, why it is left.
type decision struct {
	what    string
	clear   bool
	refusal Action
}

// claimAspect is one thing about a claim that upstream would mishandle,
// with the write that clears it.
type claimAspect struct {
	// decide returns false when the claim does not have it.
	decide func(*v1.PersistentVolumeClaim) (decision, bool)
	write  claimWrite
}

// claimAspects are checked in this order; the condition comes last, so
// that its write is pinned to the version the protection's write made.
var claimAspects = []claimAspect{
	{decide: decideProtection, write: clearProtection},
	{decide: decideCondition, write: clearCondition},
}

// decideProtection decides on the provisioning-protection finalizer and
// the request records written with it.
func decideProtection(claim *v1.PersistentVolumeClaim) (decision, bool) {
	hasFinalizer := finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer)
	var records []string
	for _, key := range provisionstate.RequestRecords {
		if _, ok := claim.Annotations[key]; ok {
			records = append(records, short(key))
		}
	}
	if !hasFinalizer && len(records) == 0 {
		return decision{}, false
	}
	var what []string
	if hasFinalizer {
		what = append(what, "finalizer "+short(provisionstate.ProvisioningProtectionFinalizer))
	}
	if len(records) > 0 {
		what = append(what, "records "+strings.Join(records, ", "))
	}
	if !hasFinalizer {
		what = append(what, "without the finalizer")
	}
	if handle := claim.Annotations[controller.AnnAbandonedVolume]; handle != "" {
		what = append(what, "its volume "+handle+" is being deleted")
	} else if name := recordedVolumeName(claim); name != "" && !settled(claim) {
		// The backend volume a CreateVolume in doubt may have made: the
		// operator looks for it under this name, not the PV's.
		what = append(what, "backend volume name "+name)
	}
	d := decision{what: strings.Join(what, "; ")}
	switch {
	case settled(claim):
		// The PV owns the volume now, as when the sidecar removes them.
		d.clear = true
	case claim.DeletionTimestamp != nil && hasFinalizer:
		// Upstream cannot remove the finalizer: the claim would stay
		// Terminating, and the volume made for it be left behind.
		d.refusal = needsYou("the volume made for it is being deleted by the sidecar: swapping back now may leak it; wait until the claim is gone")
	case claim.DeletionTimestamp != nil:
		d.refusal = noAction("the claim is being deleted, and the records go with it")
	case hasFinalizer:
		// A CreateVolume may be running, or in doubt after a restart.
		d.refusal = needsYou("provisioning in progress: wait until it is Bound, then run this again" + retryNote(claim))
	default:
		d.refusal = needsYou("not Bound yet: wait until it is, then run this again" + retryNote(claim))
	}
	return d, true
}

// settled tells whether the claim has had its volume, so that no
// CreateVolume can be running for it: Bound, or Lost (its PV was deleted).
func settled(claim *v1.PersistentVolumeClaim) bool {
	return claim.Status.Phase == v1.ClaimBound || claim.Status.Phase == v1.ClaimLost
}

// recordedVolumeName is the backend volume name the claim's record of
// --volume-name-template gives, "" without a record that reads.
func recordedVolumeName(claim *v1.PersistentVolumeClaim) string {
	record, ok := claim.Annotations[provisionstate.AnnVolumeNameTemplate]
	if !ok {
		return ""
	}
	spec, err := volumename.ParseRecord(record)
	if err != nil {
		return ""
	}
	name, err := spec.Name(claim)
	if err != nil {
		return ""
	}
	return name
}

// retryNote says how upstream's retry of a pending claim would differ from
// the attempt its records describe: a volume that attempt made would be
// left behind.
func retryNote(claim *v1.PersistentVolumeClaim) string {
	var differs []string
	if _, ok := claim.Annotations[provisionstate.AnnVolumeNameTemplate]; ok {
		differs = append(differs, "under the PV's name instead of the recorded volume name")
	}
	if _, ok := claim.Annotations[provisionstate.AnnParameterClaimMetadata]; ok {
		differs = append(differs, "with the class's claim tokens unrendered")
	}
	if len(differs) == 0 {
		return ""
	}
	return "; upstream would retry it " + strings.Join(differs, " and ") + ", leaving behind any volume the first attempt made"
}

// decideCondition decides on the claim condition.
//
// It is cleared whatever the claim's phase. Upstream never writes nor
// removes it, so after the swap it would keep saying what this sidecar
// last saw, for as long as the claim lives (on a pending claim: until
// upstream binds it, and after). Nothing acts on it but its readers, and
// a sidecar of this project still serving the claim writes it again at its
// next sync, so removing it is never wrong.
func decideCondition(claim *v1.PersistentVolumeClaim) (decision, bool) {
	owned := claimconditions.Owned(claim.Status.Conditions)
	if len(owned) == 0 {
		return decision{}, false
	}
	what := fmt.Sprintf("condition %s (%s)", short(string(claimconditions.ConditionType)), owned[0].Reason)
	if claim.Status.Phase == v1.ClaimBound {
		what += ": stale, upstream never removes it"
	} else {
		what += ": stale once upstream binds it"
	}
	return decision{what: what, clear: true}, true
}

// claimFinding is the row of a decision on claim.
func claimFinding(claim *v1.PersistentVolumeClaim, d decision) Finding {
	f := Finding{Kind: kindClaim, Namespace: claim.Namespace, Name: claim.Name, Driver: driverscope.ClaimProvisioner(claim), What: d.what, Action: d.refusal}
	if d.clear {
		f.Action = Action{Verb: WouldClear}
	}
	return f
}
