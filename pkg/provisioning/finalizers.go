package provisioning

const (
	// CloningProtectionFinalizer keeps a source claim from being deleted
	// while a clone of it may still be created from its volume.
	CloningProtectionFinalizer = "provisioner.storage.kubernetes.io/cloning-protection"
	// ProvisioningProtectionFinalizer keeps a claim from disappearing while a
	// CreateVolume for it may be running, so its volume is never forgotten.
	ProvisioningProtectionFinalizer = "provisioner.storage.kubernetes.io/provisioning-protection"
)
