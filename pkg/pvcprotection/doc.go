// Package pvcprotection is the sidecar's own PVC protection controller: it
// keeps the kubernetes.io/pvc-protection finalizer on claims and removes it
// from a claim being deleted once no pod can use the claim any more. It
// follows the rules of kube-controller-manager's controller (KCM), but does
// without KCM's live list of all pods of a namespace for every batch of
// deletions (Kubernetes issue 109282).
//
// # Scope
//
// By default only the claims of this driver are touched: those annotated
// with volume.kubernetes.io/storage-provisioner or
// volume.beta.kubernetes.io/storage-provisioner naming the driver, or whose
// storage class the driver provisions. Options.AllClaims widens that to
// every claim. A claim out of scope is never written.
//
// # Rules
//
// A claim that is not being deleted and misses the finalizer gets it: claims
// created while the admission plugin was off, or before the feature was on,
// are protected too.
//
// A claim being deleted keeps the finalizer while a pod that could still use
// it references it:
//
//   - a scheduled pod (spec.nodeName set) with a persistentVolumeClaim volume
//     naming the claim blocks until the pod object is deleted. A terminated
//     pod still blocks;
//   - an unscheduled pod never blocks: kubelet only sees scheduled pods and
//     refuses to start one whose claim is being deleted, and the scheduler
//     does not place it;
//   - a generic ephemeral volume blocks only if the claim has the name
//     derived from the pod and volume (pod name + "-" + volume name), the pod
//     is the claim's controller owner (a claim of that name the pod does not
//     own is not its volume), and the pod is not shut down. Shut down means
//     deletionTimestamp set and deletionGracePeriodSeconds 0: kubelet has
//     unmounted the volumes and asked for the final deletion, or the pod was
//     force-deleted. Letting the claim go then also breaks a cycle where a
//     pod finalizer waits for the claim to disappear.
//
// These differ from the original proposal
// (kubernetes/community, "Postpone Deletion of a Persistent Volume Claim in
// case It Is Used by a Pod"), which said that a terminated pod (Succeeded or
// Failed) does not block and did not know about ephemeral volumes. KCM
// changed the first rule because a terminated pod on a node may still have
// the volume mounted and attached: kubelet tears volumes down after the
// containers exit, and the attach/detach controller only detaches once the
// pod no longer needs the volume. Releasing the claim at termination let the
// PV be deleted (and the storage destroyed) under a mount; only the removal
// of the pod object tells that kubelet is done. Ephemeral volumes came later
// and brought the ownership and shut-down rules above.
//
// # No race, few requests
//
// The pod cache may lag behind the API server: a pod created just before the
// claim's deletion may be missing from it, and releasing the claim then
// would let a running pod lose its volume. KCM therefore never trusts an
// empty answer from its cache and lists all pods of the namespace live, per
// batch of claims. This controller proves instead that its cache is fresh
// enough (freshness.go, probe.go):
//
//  1. It notes when it first saw each claim being deleted.
//  2. A check of a namespace that started after that moment gets, with one
//     consistent list selecting a name no pod can have (zero items), a
//     resourceVersion F that is at least as new as every pod write made
//     before the request, so before the claim was seen deleting.
//  3. If the pod index has already applied a resourceVersion >= F, it holds
//     every such pod. Otherwise a short watch of the namespace's pods from
//     the index's resourceVersion replays the pod events the index may be
//     missing, up to the first event or bookmark at or past F; E is the last
//     pod event at or before F. Once the index has applied E it holds every
//     pod of the namespace written up to F. If the API server no longer has
//     the history (410 Gone), one live list of the namespace's pods decides
//     instead, as in KCM.
//  4. The claim is then decided from the index, looked up again.
//
// A namespace of few pods (by the index's count, at most 100) is listed live
// instead, in one consistent list bounded to that many pods: the answer
// comes at once, where the watch would wait up to a few seconds for a
// bookmark when the namespace is quiet, and the list reads no more than
// KCM's list of the same namespace. If the namespace has grown past the
// bound meanwhile, the list says so (a continue token) and its
// resourceVersion serves as F for step 3: a larger namespace is never
// listed while the watch can replay it.
//
// Why this is race-free: watch events reach an informer in resourceVersion
// order, and its indexer records the resourceVersion of the last event (or
// bookmark) it applied; the informer's LastSyncResourceVersion is not used
// because the reflector moves it before the indexer applies the event. A pod
// written before the deletion was observed has a resourceVersion <= F, so
// once the index has passed every pod event of that namespace up to F, it
// contains that pod (or its later state, or its deletion). A pod created
// after the claim's deletion cannot use it, as the original proposal relies
// on: the scheduler does not schedule a pod whose claim is being deleted,
// and kubelet checks the claim's deletionTimestamp live before it starts
// one.
//
// Why it is cheap: results are kept per namespace, a result counts for every
// claim seen deleting before its check started, and checks of one namespace
// never overlap (callers share the running one, or wait for it and share the
// next). A batch of a thousand deletions in one namespace costs one or two
// checks, each one tiny list and at most a short watch served from the API
// server's watch cache, with no pod objects beyond the namespace's recent
// changes. When the index merely has to catch up with E, the claim is looked
// at again shortly without another request. TrimPod keeps the pod cache
// small.
//
// The index's resourceVersion comes from client-go's AtomicFIFO feature,
// on by default. With it turned off the index reports none, and every check
// falls back to a live list, shared only by the claims waiting for it:
// KCM's cost, never a race.
//
// # How it runs
//
// The controller is a reconcile.Loop keyed by the claim's cache.ObjectName.
// Claim events queue a claim that misses the finalizer or is being deleted
// with it; pod events queue the deleting claims of a pod that may have
// stopped blocking them. A sync decides from the caches and asks the loop
// to bring the claim back shortly while the pod index catches up. The
// finalizer is written by package finalizer, with a merge patch pinned to
// the claim's resourceVersion and UID; a 409 Conflict is retried quietly
// from the newer copy.
//
// What it remembers is only memory, rebuilt after a restart: per claim
// being deleted, when it was first seen deleting and the version it released
// (so a resync of that stale copy writes nothing), and, in a
// finalizer.Holds, which claims are announced as held and by which pod.
//
// # What a person sees
//
// A held claim gets one Normal event DeletionHeldByPod naming a pod that
// blocks it, again only if that pod stops blocking while others still do,
// and DeletionReleased when the hold ends. Metrics are listed in metrics.go.
package pvcprotection
