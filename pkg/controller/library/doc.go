// Package library is where the project meets the provisioning library,
// sigs.k8s.io/sig-storage-lib-external-provisioner/v10 (the version the
// design names), and bends it toward upstream external-provisioner v6.3.0,
// which runs v13. Nothing else in the project intercepts the library.
//
// The provisioner (pkg/controller) owns an Adapter and tells it what the
// library cannot know: a failure that is a wait (NoteWait), its
// provisioning-protection finalizer write (FinalizerWritten,
// ForgetFinalizerWrite, Superseded), a volume deleted (VolumeDeleted,
// AlreadyDeleted), a claim whose hold ended (RequeueClaim).
// cmd/csi-provisioner gives the library the Adapter's Client,
// ClaimsInformer, VolumesInformer and NodesLister, the claim protection
// controller ClaimUIDIndex, and the recycle bin PVFinalizer and
// RequeueVolume. This package imports nothing of the provisioner's.
//
// What the project relies on in library v10, each with the test that
// fails if a bump of the library changes it. The tests are this package's
// unless a package is named; "live" ones run the library on a fake API
// server with real write semantics, against a stub provisioner
// (live_test.go), through the Adapter and, where the Adapter bends a
// behaviour, plain too.
//
//  1. The claim index: the library registers an index "uid"
//     (ClaimUIDIndex) of claims by UID on the claim informer it is given;
//     claim protection reads it rather than keep a second index of every
//     claim. Live: TestTheLibraryIndexesClaimsByUID.
//  2. Its handlers: the library adds its claim and PV handlers through the
//     informers it is given, and its update handler queues the new object
//     whatever the old one is, so that calling it with one object twice,
//     as a resync does, brings a claim or a PV back at once (RequeueClaim
//     when an infeasible hold ends, RequeueVolume at a kept volume's
//     deadline). Live: TestAnIgnoredClaimWaitsUntilItIsHandedBack,
//     TestARefusedVolumeWaitsUntilItIsHandedBack; the handlers kept:
//     TestAClaimHandedBackStillReachesTheLibrary; with the provisioner:
//     pkg/controller TestLibraryCallsCreateVolumeOnceForAnInfeasibleClaimUntilTheHoldEnds.
//  3. Its retries: a failed attempt is retried at the pace of the
//     RateLimiter option (upstream's back-off), without end with
//     FailedProvisionThreshold(0); but any update of a claim queues it at
//     once, past the back-off, so the updates made only by the sidecar's
//     own protection writes are kept from the library's claim handlers
//     (withoutOwnWrites). Live: TestAFailureIsRetriedAtTheBackOffsPace,
//     TestAClaimUpdateSkipsTheBackOffUnlessItIsTheSidecarsOwnWrite; the
//     writes that are the sidecar's own:
//     TestTheLibraryDoesNotSeeTheSidecarsOwnClaimWrites,
//     TestTheLibrarySeesEveryOtherClaimChange,
//     TestTheFilterLeavesTheCachedClaimsAlone.
//  4. The Provision contract: ShouldProvision (Qualifier) is asked first
//     for each claim without a volume, and false leaves the claim with no
//     event and no retry. The library names the PV pvc-<claim UID> and
//     leaves a claim whose PV of that name it has cached. An IgnoredError
//     ends the attempt with no event of the library's and no retry, and
//     counts as failed in its metrics: the provisioner's infeasible hold
//     posts upstream's event itself and returns one. A claim left
//     ProvisioningInBackground is tried again even once it is gone, from
//     the library's own copy. ProvisioningReschedule: see 6. Live:
//     TestAClaimTheQualifierRefusesIsLeftAlone,
//     TestTheLibraryNamesThePVAfterTheClaimUID,
//     TestAnIgnoredClaimWaitsUntilItIsHandedBack,
//     TestAClaimProvisionedInBackgroundIsRetriedOnceItIsGone.
//  5. Its events: the library's recorder writes only through
//     Client(...).CoreV1().Events(""), which the Adapter gives an events
//     client of its own. A Provision error is a Warning
//     ReasonProvisioningFailed `failed to provision volume with
//     StorageClass "<class>": <error>` (failurePrefix), which the Adapter
//     sends as `<error>` alone, upstream's (v13) text; a Delete error is a
//     Warning ReasonVolumeFailedDelete `<error>`, upstream's text already.
//     Either is sent as Normal when the provisioner noted it as a wait;
//     the recorder's repeat counting and aggregation keep working. Live:
//     TestTheLibrarysProvisionFailureLeavesAsUpstreams,
//     TestTheLibrarysDeleteFailureLeavesAsUpstreams; the events client:
//     TestTheLibrarysEventsGoThroughTheEventsClient; repeats and
//     aggregation: TestLibraryFailure* (events_test.go); every text of the
//     library's and the provisioner's against upstream's: pkg/controller
//     TestEventsAsUpstream.
//  6. The reschedule: on ProvisioningReschedule of a claim with a selected
//     node, the library sends an Update (its only update of a claim) of
//     the copy it gave Provision, less volume.kubernetes.io/selected-node,
//     and then stores that object in its informer's cache. When the
//     provisioner's finalizer write made the copy stale, the Adapter
//     redoes the change on the write's version and stores the server's
//     copy (reschedule.go). Live: TestTheLibraryReschedulesWithAnUpdateOfItsCopy;
//     the redo: reschedule_test.go; with the provisioner: pkg/controller
//     TestLibraryReschedulesAfterOneCreateVolume.
//  7. The selected node: the library looks it up through the NodesLister
//     option before Provision and, when the Node is missing, reschedules
//     the claim with a Warning `node "<name>" not found`; upstream's hands
//     Provision the name alone, so NodesLister never fails. Live, plain
//     and through the Adapter: TestTheLibraryLooksTheSelectedNodeUpThroughItsLister;
//     the lister: TestTheLibrarysNodeLookupNeverFails.
//  8. Its PV finalizer: with AddFinalizer (gate HonorPVReclaimPolicy) the
//     library puts PVFinalizer on the PVs it provisions. Once Delete
//     succeeded it DELETEs the PV and then removes the finalizer with a
//     patch through its client, which the Adapter watches; the update the
//     DELETE made may bring a stale copy of the PV back to the library,
//     which would delete the volume again (AlreadyDeleted stops that).
//     Live: TestTheLibraryKeepsItsFinalizerUntilTheVolumeIsDeleted; the
//     guard: delete_guard_test.go; with the provisioner: pkg/controller
//     TestSecondPassIsSkippedAfterDelete.
//  9. Retained PVs: the library takes its finalizer off a PV that says
//     Retain or Recycle and never deletes its volume, and puts the
//     finalizer back only on a Bound PV that says Delete. The recycle bin
//     says Retain on a PV it keeps and gives PVFinalizer back itself with
//     the Delete policy. Live: TestTheLibraryLeavesARetainedVolumeAlone.
//  10. The delete guard: ShouldDelete (DeletionGuard) is asked before the
//     library's own checks of each PV of this driver, and false leaves the
//     PV until it is queued again. Live:
//     TestARefusedVolumeWaitsUntilItIsHandedBack.
package library
