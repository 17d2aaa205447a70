// Package provisionstate holds the state of a claim's provisioning that the
// CSI provisioner (pkg/controller) and the claim protection controller
// (pkg/claimprotection) both read, so that neither reads the other: the
// finalizers and annotations the provisioner puts on claims, a claim's data
// source, and the trackers of calls in flight through which they meet.
// cmd/csi-provisioner builds one Tracker and one Readers and hands them to
// both. With the gate ClaimConditions, the claim conditions controller
// (pkg/claimconditions) reads the Tracker too, and DriverErrors, the
// driver's last refusal per claim, which the provisioner records.
package provisionstate
