package claimconditions

import (
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// ConditionType is the one condition of a claim's status this controller
// owns. Domain-qualified, like the readiness gates of pods, so that it can
// never be one of Kubernetes' own types (Resizing,
// FileSystemResizePending, ModifyVolumeError, ModifyingVolume, ...), which
// are bare words; the domain is the one of this sidecar's finalizers.
const ConditionType v1.PersistentVolumeClaimConditionType = "provisioner.storage.kubernetes.io/Provisioning"

// Reasons of the condition.
const (
	ReasonWaitingForFirstConsumer = "WaitingForFirstConsumer"
	ReasonProvisioning            = "Provisioning"
	ReasonDriverError             = "DriverError"
	ReasonInfeasibleRetryDelayed  = "InfeasibleRetryDelayed"
	ReasonDeletionProtected       = "DeletionProtected"
)

// Messages that take no detail.
const (
	msgProvisioning = "CreateVolume is running; the claim is bound once the driver has made the volume"
	// msgDeletionProtected is claim protection's message of its hold
	// (DeletionHeldForProvisioning), which says why.
	msgDeletionProtected = "Deletion waits: a CreateVolume for this claim may still be running; its volume will be deleted first"
)

// maxDriverMessage bounds the driver's text in a message, as events bound
// theirs: a claim is read by everyone who lists claims.
const maxDriverMessage = 1000

// State is a condition the claim should carry: its reason and message. The
// zero State is no condition.
type State struct {
	Reason  string
	Message string
}

// None tells the State of no condition.
func (s State) None() bool { return s.Reason == "" }

// stateOf is the State a carried condition says; its status is checked
// apart (see carries).
func stateOf(c *v1.PersistentVolumeClaimCondition) State {
	if c == nil {
		return State{}
	}
	return State{Reason: c.Reason, Message: c.Message}
}

// facts are what the desired state is decided from: the claim and what
// this process knows of it.
type facts struct {
	claim *v1.PersistentVolumeClaim
	// carried is the condition the claim carries, nil for none.
	carried *v1.PersistentVolumeClaimCondition
	// class is the claim's StorageClass, nil when it is not known.
	class *storagev1.StorageClass
	call  provisionstate.CallState
	// lastErr is the driver's last refusal, if hasErr.
	lastErr provisionstate.DriverError
	hasErr  bool
	// heldUntil is the end of an infeasible hold, if held.
	heldUntil time.Time
	held      bool
}

// desired is the State the claim should carry, from the first rule that
// applies. It is a pure function of f, so each state and each transition
// is tested without a controller.
func desired(f facts) State {
	claim, carried := f.claim, stateOf(f.carried)
	switch {
	case claim.Status.Phase == v1.ClaimBound || claim.Status.Phase == v1.ClaimLost:
		// Never on a Bound claim: it is removed, never added.
		return State{}
	case claim.Spec.VolumeName != "":
		// The binder is binding (it writes the claim, then its status):
		// a write now would make its status update conflict. The claim
		// keeps what it has until it is Bound.
		return carried
	case claim.DeletionTimestamp != nil:
		if finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer) {
			return State{Reason: ReasonDeletionProtected, Message: msgDeletionProtected}
		}
		return State{}
	case f.held:
		return State{Reason: ReasonInfeasibleRetryDelayed, Message: infeasibleMessage(f.heldUntil, f.lastErr, f.hasErr)}
	case f.hasErr && !(f.lastErr.Code == codes.InvalidArgument && carried.Reason == ReasonInfeasibleRetryDelayed):
		// The refusal stands while the retry runs: no write at every
		// attempt. After an infeasible hold ends the claim keeps the
		// hold's condition until the retry's answer, which is one write
		// per hold rather than two.
		return State{Reason: ReasonDriverError, Message: driverErrorMessage(f.lastErr)}
	case f.call == provisionstate.Calling || f.call == provisionstate.Created:
		if carried.Reason == ReasonDriverError || carried.Reason == ReasonInfeasibleRetryDelayed {
			// A retry of a refused call (perhaps of an earlier
			// process): its answer tells what comes next.
			return carried
		}
		return State{Reason: ReasonProvisioning, Message: msgProvisioning}
	case waitsForConsumer(claim, f.class):
		return State{Reason: ReasonWaitingForFirstConsumer, Message: fmt.Sprintf(
			"Waiting for a pod that uses the claim to be scheduled: StorageClass %s binds volumes with WaitForFirstConsumer", f.class.Name)}
	case carried.Reason == ReasonWaitingForFirstConsumer:
		// A node is selected: the claim no longer waits for one.
		return State{}
	}
	// This process knows nothing newer than what the claim says (it
	// restarted, or a retry is not due yet): the claim keeps it.
	return carried
}

// waitsForConsumer tells a claim whose class binds with
// WaitForFirstConsumer and which no node was selected for yet.
func waitsForConsumer(claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass) bool {
	return class != nil && class.VolumeBindingMode != nil &&
		*class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer &&
		claim.Annotations[provisionstate.AnnSelectedNode] == ""
}

// driverErrorMessage says the refusal as gRPC and the events say it.
func driverErrorMessage(e provisionstate.DriverError) string {
	return fmt.Sprintf("CreateVolume failed, retrying with back-off: rpc error: code = %s desc = %s", e.Code, truncate(e.Message))
}

// infeasibleMessage says until when the claim is held back and why. The
// time is the hold's own, the same at every sync, so the message changes
// only with a new hold.
func infeasibleMessage(until time.Time, e provisionstate.DriverError, hasErr bool) string {
	msg := fmt.Sprintf("The driver refused CreateVolume as infeasible; retries are delayed until %s", until.UTC().Format(time.RFC3339))
	if hasErr {
		msg += fmt.Sprintf(": rpc error: code = %s desc = %s", e.Code, truncate(e.Message))
	}
	return msg
}

func truncate(s string) string {
	if len(s) <= maxDriverMessage {
		return s
	}
	// Cut at a rune boundary.
	cut := maxDriverMessage
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

// Owned is the condition of conds this controller owns, as a list of at
// most one, nil for none: what a claim cache that trims claim status must
// keep for it (see cmd/csi-provisioner/informers.go). It is written only
// with patches of itself, so a copy without the rest never erases it.
func Owned(conds []v1.PersistentVolumeClaimCondition) []v1.PersistentVolumeClaimCondition {
	for _, c := range conds {
		if c.Type == ConditionType {
			return []v1.PersistentVolumeClaimCondition{c}
		}
	}
	return nil
}
