// Package cleanup is the control-plane half of the deletion of LocalVolumes
// (local.storage.openshift.io/v1) and LocalVolumeSets (v1alpha1), behind the
// LocalVolumeCleanup gate. It puts the
// storage.openshift.com/local-volume-protection finalizer, with the
// ManagedByAnnotation marker, on every owner, and keeps an owner being
// deleted until the local PVs made from it are gone: it deletes those never
// bound, waits for the node agent (package agent) to wipe and delete the
// released ones, reports those it cannot delete (Bound, or Retained) with
// events and a DeletionBlocked status condition, and lets go of those whose
// node is gone.
//
// Its invariants:
//
//   - A PV a claim may use is never deleted here: an unbound PV is deleted
//     pinned to the resourceVersion and UID of the version seen unbound, so
//     a claim bound at that instant wins and the PV then blocks.
//   - No owner is left stuck: with the gate off (Options.Enabled false) the
//     controller only removes the finalizers and markers it added, and a PV
//     on a node lost for Options.NodeGoneGrace is let go with a Warning.
//
// One controller handles both kinds on a reconcile.Loop keyed by OwnerKey,
// reading them through the generated client and informers (pkg/generated)
// and writing every finalizer through package finalizer. Everything it
// decides comes from the caches and the API server, and every write carries
// a precondition, so it may restart at any point.
//
// See docs/local-volumes.md for the rule per PV state, the status, lost
// nodes, why unbound PVs are deleted rather than marked Released, and the
// local-storage-operator gaps this closes.
package cleanup
