package recyclebin

// The keys of the bin's metadata. None is a StorageClass parameter, so a
// driver never receives them, and upstream external-provisioner, which
// ignores them, keeps working with the same objects.
const (
	// AnnRetention on a StorageClass overrides --volume-retention for its
	// volumes: a Go duration ("72h"); "0" turns retention off for the class.
	AnnRetention = "provisioner.storage.kubernetes.io/volume-retention"

	// AnnRetainedUntil on a released PV is the time (RFC 3339, UTC) from
	// which its volume may be deleted.
	AnnRetainedUntil = "provisioner.storage.kubernetes.io/retained-until"
	// AnnRetainedFrom names the claim the volume came from, as
	// "namespace/name" followed by " uid".
	AnnRetainedFrom = "provisioner.storage.kubernetes.io/retained-from"
	// LabelRetained marks retained PVs, so that one selector lists them:
	// kubectl get pv -l provisioner.storage.kubernetes.io/retained=true
	LabelRetained = "provisioner.storage.kubernetes.io/retained"

	// AnnRestoreTo, written by a user on a retained PV, asks that the PV
	// be given to the claim "namespace/name", which must name the PV in
	// its spec.volumeName.
	AnnRestoreTo = "provisioner.storage.kubernetes.io/restore-to"
	// AnnRestoredTo, written with a give-back, names the claim the volume
	// was given to, as "namespace/name uid": until kube-controller-manager
	// binds them the PV is still Released, and this tells it from a
	// release.
	AnnRestoredTo = "provisioner.storage.kubernetes.io/restored-to"
	// AnnPurge, written by a user on a retained PV with the value "true",
	// asks that its volume be deleted now.
	AnnPurge = "provisioner.storage.kubernetes.io/purge"

	// AnnReclaimPolicy on a kept PV is the reclaim policy it had before the
	// bin set Retain ("Delete"); the bin gives it back at expiry, purge or
	// give-back. While the PV says Retain, no provisioner that does not know
	// the bin (upstream external-provisioner, kube-controller-manager, this
	// sidecar with retention off) deletes its volume.
	AnnReclaimPolicy = "provisioner.storage.kubernetes.io/reclaim-policy"
	// FinalizerKept is on a PV while the bin keeps its volume: a kept PV
	// deleted while no sidecar that knows the bin runs stays Terminating,
	// still naming its volume, instead of vanishing and leaving the volume
	// behind. The bin deletes the volume and then removes it.
	FinalizerKept = "provisioner.storage.kubernetes.io/recycle-bin"
)
