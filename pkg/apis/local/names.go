// Package local holds the names shared by the LocalVolume (v1) and
// LocalVolumeSet (v1alpha1) APIs, the node agent that provisions local
// persistent volumes from them, and the control-plane controller that cleans
// up when they are deleted. The names match OpenShift's
// local-storage-operator (LSO), so objects and PVs written by either are
// recognised by the other.
package local

const (
	// GroupName is the API group of LocalVolume and LocalVolumeSet.
	GroupName = "local.storage.openshift.io"

	// LocalVolumeProtectionFinalizer is put on every LocalVolume and
	// LocalVolumeSet. The control plane removes it only once no PV that the
	// object owns is left, so the object outlives its volumes.
	LocalVolumeProtectionFinalizer = "storage.openshift.com/local-volume-protection"

	// SymlinkDeleterFinalizer is put on every local PV when it is created.
	// The node agent removes it after the PV was cleaned and deleted and,
	// if the owner is being deleted, its symlink on the node was removed.
	SymlinkDeleterFinalizer = "storage.openshift.com/lso-symlink-deleter"

	// OwnerKindLabel, OwnerNameLabel and OwnerNamespaceLabel are put on every
	// local PV and name the LocalVolume or LocalVolumeSet it was created
	// from: kind ("LocalVolume" or "LocalVolumeSet"), name and namespace.
	OwnerKindLabel      = "storage.openshift.com/owner-kind"
	OwnerNameLabel      = "storage.openshift.com/owner-name"
	OwnerNamespaceLabel = "storage.openshift.com/owner-namespace"

	// NodeLabel is the node label whose value pins a local PV to its node
	// (in the PV's node affinity).
	NodeLabel = "kubernetes.io/hostname"

	// ConditionDeletionBlocked is the status condition of a LocalVolume or
	// LocalVolumeSet being deleted: True while PVs it owns that only the
	// user can let go of (bound, or released with reclaim policy Retain)
	// hold its deletion, False once none does.
	ConditionDeletionBlocked = "DeletionBlocked"
)

// The kinds, as the OwnerKindLabel of a local PV names its owner's.
const (
	KindLocalVolume    = "LocalVolume"
	KindLocalVolumeSet = "LocalVolumeSet"
)
