// Package claimconditions is the claim conditions controller (gate
// ClaimConditions): it says on a pending claim's status what this sidecar
// is doing for it or waiting for, as the condition ConditionType, until the
// claim is Bound. Events say the same, but expire after an hour and are
// rate limited and folded; a condition stays as long as it is true, and a
// client reads it with the claim.
//
// The reasons, from the first that applies:
//
//   - DeletionProtected: the claim is being deleted and provisioning
//     protection holds it, as long as a CreateVolume for it may run;
//   - InfeasibleRetryDelayed: the driver refused CreateVolume as infeasible
//     (InvalidArgument) and the provisioner holds the claim back until the
//     time the message gives;
//   - DriverError: the driver's last refusal of CreateVolume, with its gRPC
//     code; it stands while the retry runs, until an answer replaces it;
//   - Provisioning: a CreateVolume for the claim is running, or its PV is
//     being saved;
//   - WaitingForFirstConsumer: the class binds with WaitForFirstConsumer
//     and no node is selected yet.
//
// Writes are few: only a state that has lasted Options.Settle is written
// (a claim provisioned quickly gets none), only when it differs from the
// condition the claim carries (type, status, reason and message), as one
// strategic-merge patch of the status subresource that touches this
// condition alone, pinned to the claim's resourceVersion and UID: a
// decision made on a stale copy conflicts and is made again on the fresh
// claim. lastTransitionTime changes with the reason, not with the message
// alone (a new time of an infeasible hold, another text of the same
// refusal): it tells since when the claim has been in this state.
//
// The controller reads the claim cache (which keeps this condition of a
// claim's status for it) and StorageClasses, and the provisioner's state
// only through injected interfaces: the call tracker, the driver's last
// refusals and the infeasible holds. What it knows only in memory (a
// running call, the last refusal) a restart forgets: a claim then keeps
// what it carries until this process learns something newer. When the
// sidecar stops serving claims, HandOff removes the condition from every
// claim that carries it, since the next provisioner may not know it.
package claimconditions
