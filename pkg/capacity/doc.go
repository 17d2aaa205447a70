// Package capacity publishes the storage capacity a CSI driver reports with
// GetCapacity as CSIStorageCapacity objects, one per topology segment and
// StorageClass, so that the scheduler places pods where their volumes fit.
//
// The objects carry the labels upstream external-provisioner gives them
// (driver name and managed-by), so a swap in either direction adopts the
// objects the other created instead of duplicating them.
//
// The controller has the project's one shape: informer events and a poll
// put keys (segment, class) on a workqueue, and sync brings the object of a
// key to what the caches and the driver say, creating, updating or deleting
// it. Node and CSINode events first go on the topology's own queue
// (upstream's csitopology), whose sync lists the segments and puts one key
// on the capacity queue when they changed.
//
// A sync creates and deletes at once but does not update: it records the
// driver's answer as the key's pending write (a newer answer replaces it,
// one equal to the published object drops it), and writers make the
// pending writes highest priority first: changes that cross the largest
// request of the class the scheduler may still place, then the largest
// relative change, oldest first. With more changes than the client's
// budget, the ones the scheduler acts on are not stuck behind the rest.
//
// It keeps no state a restart could lose: the objects themselves are the
// record, and the first pass after a start decides every pending write
// again.
package capacity
