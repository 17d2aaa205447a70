// Package cleanup is the control-plane half of the deletion of LocalVolumes
// (local.storage.openshift.io/v1) and LocalVolumeSets (v1alpha1): it keeps
// a LocalVolume or LocalVolumeSet until the local PVs made from it are
// gone, deletes those no claim uses, tells the user about those it cannot
// delete, and lets go of those whose node agent is gone. The node agent
// does the other half: it wipes and deletes released PVs, removes the
// symlinks of a deleted owner and then the PVs' lso-symlink-deleter
// finalizer. The design is the local-storage-operator's (LSO)
// "handle-local-volume-deletion" enhancement.
//
// One controller handles both kinds with the same rules and events, on a
// reconcile.Loop whose keys are OwnerKeys (kind, namespace, name). It reads
// and writes them through the generated typed client, informers and
// listers (pkg/generated), and writes every finalizer through package
// finalizer. The PVs of an owner are found by their owner labels (kind,
// name, namespace), their node by their kubernetes.io/hostname label or,
// failing that, by the single hostname value of their node affinity.
//
// # Rules
//
// The controller adds the storage.openshift.com/local-volume-protection
// finalizer together with the ManagedByAnnotation marker, in one write:
// local-storage-operator puts the same finalizer on the same kinds, and the
// marker tells the ones this controller is responsible for.
//
// With the LocalVolumeCleanup feature gate off (Options.Enabled false), the
// controller never adds the finalizer and never looks at PVs; it removes
// the finalizer, and the marker, from every LocalVolume and LocalVolumeSet
// it marked, so turning the gate off never leaves one of them stuck in
// deletion. The caller runs it then only where the kinds are served and
// may be listed (cmd/csi-provisioner checks).
//
// With it on, an owner that is not being deleted gets the finalizer. An
// owner being deleted keeps it while it owns PVs, each handled by its
// state:
//
//   - Bound (phase Bound, or a claimRef with a UID while not Released or
//     Failed): blocks. A Warning DeletionBlockedByBoundVolume event names
//     the PV and its claim: delete the claim to release it. This holds
//     even when the PV is being deleted or its node is gone.
//   - Released or Failed with reclaim policy Retain: blocks. A Warning
//     DeletionBlockedByRetainedVolume event says to back up the data and
//     delete the PV. Once the user deletes it, it is a PV being deleted.
//   - Available, Pending or without a phase: it was never bound and must
//     never be. It is deleted, with the resourceVersion and UID of the
//     version seen unbound as preconditions, and a Normal
//     VolumeReleasedForDeletion event. A claim bound at that instant wins:
//     the delete fails with 409 Conflict and the next sync sees the PV
//     Bound, and blocks.
//   - Released or Failed with reclaim policy Delete: the node agent wipes
//     and deletes it; the controller waits, without events.
//   - Being deleted: the controller waits for the node agent to remove
//     its finalizer.
//   - On a lost node, whatever the above said, unless Bound or Retained:
//     see below.
//
// When no PV of the owner is left, in the cache and on the API server (a
// PV created just before the agent saw the deletion may not have reached
// the cache), the finalizer goes, with a Normal DeletionCompleted event:
// the deletion continues.
//
// Each blocking event is recorded once per owner, PV and reason while the
// blockage lasts, not on every sync; the memory of it is the controller's
// only state besides the grace periods below, so after a restart a
// blockage is announced once more. The events are recorded on object
// references, so the recorder's scheme needs no LocalVolume types.
//
// # Status
//
// An owner being deleted that PVs block gets the condition DeletionBlocked
// (local.ConditionDeletionBlocked) True, with the reason BoundVolumes,
// RetainedVolumes or BoundAndRetainedVolumes and a message that counts the
// blocking PVs, names the first few of each kind and says what to do. Once
// none blocks it turns False (NoBlockingVolumes) and stays so until the
// finalizer goes; an owner never blocked gets no condition, as nothing
// blocking is the normal case. A LocalVolumeSet's
// status.totalProvisionedDeviceCount is the number of its PVs in the cache
// (unset until it has one). Both are written with a merge patch of the
// status subresource, pinned to the version read as the conditions list is
// replaced whole, and only when they differ, so that syncs of an owner at
// rest write nothing; lastTransitionTime changes only with the condition's
// status. Like everything else they are derived from the caches, not
// remembered.
//
// # Lost nodes
//
// A PV's node is lost when no Node has its hostname (as kubernetes.io/
// hostname label or name), or when the Nodes that do are not selected by
// the owner's nodeSelector any more: then no node agent runs there, and
// none will ever clean the PV. The controller decides so only once the
// Node cache has synced and the node has been missing or unselected for
// Options.NodeGoneGrace (five minutes by default) as measured by
// Options.Clock, so that a node briefly re-registering is not taken for
// gone; until then it syncs the owner again when the grace period ends,
// and a node created again starts the period over. A lost node's PV, if
// not Bound or Retained, is deleted (with preconditions, if nobody has
// yet) and its lso-symlink-deleter finalizer removed (a merge patch pinned
// to its resourceVersion), with a Warning VolumeAbandonedOnGoneNode event
// naming the PV and the node and saying that the device and symlink were
// left untouched there and must be cleaned by hand if the node comes
// back. An unbound PV is still deleted at once while the grace period
// runs: that is always right and keeps claims away; only letting go of
// the finalizer waits.
//
// A nodeSelector is read with the semantics of node affinity (terms ORed,
// requirements ANDed; In, NotIn, Exists, DoesNotExist, Gt, Lt on labels
// and In, NotIn on metadata.name); an unset one, or one without terms,
// selects every node. A selector that cannot be evaluated counts as
// selecting the node: doubt never gets volumes abandoned.
//
// # Why unbound PVs are deleted rather than marked Released
//
// LSO marks an unbound PV Released (status.phase) to keep claims away
// while the node agent cleans it. That does not hold. The PV controller of
// kube-controller-manager sets any PV without a claimRef back to Available
// on its next sync of the PV (syncVolume: "volume is unused"), and the
// binder (component-helpers storage/volume FindMatchingVolume, as of
// Kubernetes 1.36) looks at the phase only after it has skipped volumes
// bound to another claim and those with a deletionTimestamp, and after it
// has accepted a volume whose claimRef names the claim: a Released phase
// is at best a window. A deletionTimestamp is checked before all of that
// and cannot be taken back. Deleting the PV with preconditions gives it
// one, atomically with the check that it is still unbound. The PV object
// stays, held by the node agent's lso-symlink-deleter finalizer (and
// kubernetes.io/pv-protection), until the agent has removed its symlink
// and the finalizer.
//
// # LSO gaps closed
//
//   - A PV deleted, or left, in the Failed phase kept its owner stuck;
//     here Failed is treated as Released: waited for with policy Delete,
//     blocking with an event with Retain.
//   - A PV on a node that was deleted, or that the nodeSelector no longer
//     selects, kept its owner stuck forever, as no agent would remove its
//     finalizer; here it is let go after the grace period, with a Warning.
//   - A blocked LocalVolumeSet deletion had no events; here both kinds get
//     the same events.
//   - Marking PVs Released did not keep claims away (above); deleting them
//     does.
//
// Everything the controller decides comes from the informer caches and
// the API server, and every write carries a precondition, so it is safe to
// restart at any point and to run beside a node agent writing the same
// PVs. The only memory it keeps is which blockages it announced and since
// when it has seen nodes unreachable; after a restart the grace period
// starts over.
package cleanup
