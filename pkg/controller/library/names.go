package library

// Names library v10 uses and does not export. Each is guarded by a test
// that runs the library (see doc.go).
const (
	// ClaimUIDIndex is the index of claims by UID that the library
	// registers on the claim informer it is given (its uidIndex): it finds
	// the claims of its queue, whose keys are UIDs. Controllers on the same
	// informer read it rather than keep a second index of every claim.
	ClaimUIDIndex = "uid"

	// PVFinalizer is the finalizer the library keeps on the PVs it
	// provisioned, with AddFinalizer, until it has deleted their volume.
	PVFinalizer = "external-provisioner.volume.kubernetes.io/finalizer"

	// ReasonProvisioningFailed and ReasonVolumeFailedDelete are the
	// reasons of the library's Warning events for a failed Provision and
	// a failed Delete.
	ReasonProvisioningFailed = "ProvisioningFailed"
	ReasonVolumeFailedDelete = "VolumeFailedDelete"

	// failurePrefix opens the library's ProvisioningFailed message of a
	// Provision error; the class name and `": ` follow, then the error.
	failurePrefix = "failed to provision volume with StorageClass \""
)
