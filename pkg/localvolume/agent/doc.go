// Package agent is the node agent of the local-volume feature: for one node
// it turns the devices that LocalVolume and LocalVolumeSet objects ask for
// into local PersistentVolumes, and cleans and removes them when they are
// released. It is the counterpart of local-storage-operator's "diskmaker"
// daemon, following the design in local-volume-deletion.md, with the
// device work done by package devices.
//
// # Lifecycle of a volume
//
//  1. Discovery. For every owner (LocalVolume, LocalVolumeSet) whose
//     spec.nodeSelector selects this node and that is not being deleted,
//     the agent lists the node's block devices and asks devices.Checker
//     which of them the owner may use (a LocalVolume's devicePaths, with
//     forceWipeDevicesAndDestroyAllData as Force; a LocalVolumeSet's
//     deviceInclusionSpec as a Filter, capped at maxDeviceCount PVs of the
//     owner on this node). Discovery runs on every change and every
//     Options.Resync, since disks can be added at any time.
//  2. Symlink and PV. Each selected device gets the symlink
//     <SymlinkRoot>/<storageClass>/<by-id name> pointing at its stable
//     /dev/disk/by-id name, and a PV named PVName(node, symlink path),
//     pinned to the node by kubernetes.io/hostname, with reclaim policy
//     Delete, the owner labels and the storage.openshift.com/lso-symlink-deleter
//     finalizer. The name is deterministic, so a repeated create can never
//     make a second PV for one disk.
//  3. Release and clean. A PV of this node that is Released or Failed, has
//     the Delete policy and is not being deleted is wiped and then deleted
//     with UID and resourceVersion preconditions.
//  4. Deletion. A PV being deleted that carries the finalizer loses its
//     symlink if its owner is being deleted or gone, then the finalizer.
//     If the owner is alive the symlink stays: it keeps naming the same
//     disk across reboots that rename sdX, and the disk is offered again
//     as a new PV (new UID, no wipe record) on the next discovery.
//
// # Safety rules
//
//   - A device the library rejects is never touched. Rejections are logged;
//     each (owner, device, reason) gets one DeviceRejected event, except
//     devices that merely do not match a LocalVolumeSet's filter, and
//     devices that back a local volume already (a mounted disk of a bound
//     PV is not news).
//   - A disk is claimed once: a device that already has a PV or a symlink
//     under the symlink root is not given to another owner or class. One
//     worker runs all syncs, so the check and the claim are not raced.
//   - Nothing is wiped without a fresh check: before each wipe the device
//     behind the PV's symlink goes through Select again (Paths, Force) and
//     is wiped only if selected; a mounted, held or unreadable device is
//     refused (WipeRefused event, retried with backoff).
//   - A wipe is recorded on the PV so it is never repeated after it
//     completed: local.storage.csi-protect.io/wipe-started is written before
//     it (merge patch pinned to the PV's resourceVersion and UID, so a PV
//     that changed, e.g. was bound again, is not wiped) and
//     local.storage.csi-protect.io/wiped after it. The decision is taken on
//     the PV read from the API server, not the cache, which may not show
//     the agent's own last write yet. A PV with wiped is only deleted. A
//     PV with wipe-started but not wiped was being wiped when the agent
//     stopped: if its device still carries a signature the wipe is run to
//     completion, if it carries none the wipe had finished and is only
//     recorded, so no device is wiped twice. Nothing new can be lost
//     either way: the PV stayed Released, so no claim wrote to the device.
//   - A PV being deleted is never wiped: the agent deletes a PV only after
//     cleaning it, and the control plane deletes only volumes that were
//     never bound.
//   - A PV being deleted while still Bound keeps its symlink and finalizer
//     until it is not bound any more.
//   - Only symlinks are removed (devices.RemoveSymlink), and only at
//     <SymlinkRoot>/<class>/<name>; anything else at a PV's path is left
//     alone and reported, and the finalizer still goes, so a deleted owner
//     is never left stuck.
//
// # What it reads
//
// The Node object (its labels, for node selectors and the hostname), the
// PVs labelled with this node's hostname (one label-selected informer), and
// the owners, through informers and listers of the generated LocalVolume
// client (pkg/generated) that the agent runs itself. Everything it decides
// comes from these and the host, so it may be restarted at any point; the
// only memory it keeps is which events it has already emitted.
//
// # How it runs
//
// The agent is a reconcile.Loop with one worker, whose Keys name an owner
// (kind, namespace, name) or a PV of this node. Owner keys run discovery,
// PV keys cleaning and deletion. The event handlers queue them, and every
// Options.Resync queues all of them again. Events on owners are recorded
// on object references, so the recorder's scheme needs no LocalVolume
// types; the finalizer is removed through package finalizer, with the
// same pinned merge patch as every other write.
package agent
