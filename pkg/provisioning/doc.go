// Package provisioning holds what the CSI provisioner (pkg/controller) and
// the claim protection controller (pkg/claimprotection) share, so that
// neither reads the other: the names of the finalizers the provisioner puts
// on claims, a claim's data source, and the in-flight call tracker through
// which they meet. cmd/csi-provisioner builds one Tracker and hands it to
// both.
package provisioning
