package provisionstate

// Records of how a claim's CreateVolume was made, written with the
// provisioning-protection finalizer in the same write, so that every retry
// and the replay of a deleted claim ask the driver for the same volume
// even when the sidecar's settings changed since. Each is written only when
// the setting it records is in use; a claim without one was provisioned
// with the default (its PV name as the driver's name, its parameters as
// the class gives them). The claim protection controller removes them
// with the finalizer.
const (
	// AnnVolumeNameTemplate records the --volume-name-template (with the
	// prefix and maximum length) that named the claim's volume.
	AnnVolumeNameTemplate = "provisioner.storage.kubernetes.io/volume-name-template"
	// AnnParameterClaimMetadata records the claim labels and annotations
	// that the StorageClass's parameters were rendered with
	// (--claim-parameter-templates).
	AnnParameterClaimMetadata = "provisioner.storage.kubernetes.io/parameter-claim-metadata"
)

// AnnRestoredSnapshotHandle records on a claim restored from a snapshot,
// with provisioning protection, the snapshot handle its CreateVolume reads:
// if the claim is deleted mid-call and the snapshot is deleted too (nothing
// keeps a snapshot of another namespace, say, from the snapshot controller),
// the call can still be replayed to find and delete its volume.
const AnnRestoredSnapshotHandle = "provisioner.storage.kubernetes.io/restored-snapshot-handle"

// RequestRecords are the annotations that describe a claim's CreateVolume
// request while it may be replayed.
var RequestRecords = []string{AnnRestoredSnapshotHandle, AnnVolumeNameTemplate, AnnParameterClaimMetadata}
