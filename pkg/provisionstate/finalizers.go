package provisionstate

const (
	// CloningProtectionFinalizer keeps a source claim from being deleted
	// while a clone of it may still be created from its volume.
	CloningProtectionFinalizer = "provisioner.storage.kubernetes.io/cloning-protection"
	// ProvisioningProtectionFinalizer keeps a claim from disappearing while a
	// CreateVolume for it may be running, so its volume is never forgotten.
	ProvisioningProtectionFinalizer = "provisioner.storage.kubernetes.io/provisioning-protection"
)

// SnapshotSourceProtectionFinalizer keeps a VolumeSnapshot from being
// deleted while a volume may still be restored from it. Upstream
// external-provisioner (v6.2 and later) uses the same name, so a swap in
// either direction releases what the other put on.
const SnapshotSourceProtectionFinalizer = "provisioner.storage.kubernetes.io/volumesnapshot-as-source-protection"

// AnnProvisioningNode records on a claim, with the provisioning-protection
// finalizer, the node whose sidecar calls CreateVolume for it when
// sidecars run one per node (--node-deployment). Only that node's driver
// can hold the volume, so only that node's sidecar may replay the call and
// delete it, even after the selected-node annotation changed.
const AnnProvisioningNode = "provisioner.storage.kubernetes.io/provisioning-node"
