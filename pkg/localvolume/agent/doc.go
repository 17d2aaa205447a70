// Package agent is the node agent of the local-volume feature
// (cmd/local-volume-agent): for one node it turns the devices that
// LocalVolume and LocalVolumeSet objects select into local
// PersistentVolumes, and wipes and deletes them when they are released. It
// is the counterpart of local-storage-operator's "diskmaker" daemon; the
// device work is package devices.
//
// A volume goes through four steps: discovery (the owners that select this
// node, and the devices devices.Checker lets each use), a symlink
// <SymlinkRoot>/<storageClass>/<by-id name> and a PV named
// PVName(node, symlink path) with the storage.openshift.com/lso-symlink-deleter
// finalizer, the wipe and deletion of a Released or Failed PV with the
// Delete policy, and on the PV's deletion the removal of its symlink (if
// its owner is going) and of the finalizer.
//
// Its invariants:
//
//   - A device is used only if devices.Checker selects it, is never given
//     to two owners, and is checked again before each wipe.
//   - A device is wiped at most once per release: the wipe is recorded on
//     the PV before and after (local.storage.csi-protect.io/wipe-started
//     and .../wiped), pinned to the PV's resourceVersion and UID, so a
//     restart finishes an interrupted wipe and never repeats a finished one.
//   - Only symlinks under the symlink root are removed, and a deleted owner
//     is never left stuck by a PV's finalizer.
//
// The agent is a reconcile.Loop with one worker, keyed by owner or PV
// (Key); it decides from the Node, its PVs, the owners and the host alone,
// so it may restart at any point.
//
// See docs/local-volumes.md for the lifecycle step by step, every safety
// rule, and what the agent reads.
package agent
