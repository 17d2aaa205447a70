// Package snapshotprotection removes the volumesnapshot-as-source-protection
// finalizer that the provisioner puts on a VolumeSnapshot before restoring
// a volume from it, once no provisioning can read the snapshot any more:
// no claim restoring from it is still without a volume, and no restore of
// this process reads it (a claim deleted mid-call with provisioning
// protection off is gone from the API while its CreateVolume runs).
//
// It is driven by VolumeSnapshot and claim events, and by a periodic sweep
// of the snapshot cache (--snapshot-orphan-sweep-interval) that catches
// finalizers orphaned while no sidecar ran.
package snapshotprotection
