// Package rollback is the check to run before this sidecar's image is
// swapped back for upstream external-provisioner (csi-provisioner
// --prepare-rollback): it finds, in the whole cluster, what this project
// wrote that upstream would mishandle, clears what is safe to clear, and
// says why it leaves the rest.
//
// What it looks for is written by this project alone, so it needs no
// driver name:
//
//   - claims with the provisioning-protection finalizer or the request
//     records written with it: cleared on a Bound claim (the finalizer
//     would hold its deletion for ever under upstream); left on a pending
//     claim, whose CreateVolume may be running or in doubt, and on a claim
//     being deleted, whose volume the sidecar is deleting;
//   - claims with the claim condition: cleared, as upstream would leave it
//     stale for ever;
//   - kept volumes of the recycle bin: never cleared (they hold data);
//     safe when their reclaim policy is Retain, a danger while it is
//     still Delete;
//   - StorageClasses whose driver parameters read the claim, which
//     upstream would send to the driver unrendered.
//
// Every write is pinned to the version of the object it was decided on; a
// conflict is read again and decided once more.
package rollback
