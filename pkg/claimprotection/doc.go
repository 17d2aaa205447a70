// Package claimprotection is the claim protection controller: it owns the
// removal of the two finalizers the provisioner (pkg/controller) puts on
// claims.
//
//   - cloning-protection, on a claim that a clone reads, goes once no claim
//     that clones it is still waiting for its volume;
//   - provisioning-protection, on a claim whose CreateVolume may be running,
//     goes once the claim's PV exists, or once no CreateVolume for it can be
//     running any more. For a claim deleted while this process does not know
//     whether a call made for it (perhaps by an earlier process) still runs,
//     it has the provisioner replay that CreateVolume and delete what it
//     returns, so the volume is never leaked.
//
// It reads the provisioner only through two interfaces that
// cmd/csi-provisioner builds: the in-flight call tracker (CallStates) and
// the replay operation (Replayer).
package claimprotection
