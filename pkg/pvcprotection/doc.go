// Package pvcprotection is the sidecar's own PVC protection controller (gate
// PVCProtection): it keeps the kubernetes.io/pvc-protection finalizer on the
// claims in scope (this driver's, or every claim with Options.AllClaims),
// and removes it from a claim being deleted once no pod can use the claim
// any more.
//
// The rules are kube-controller-manager's (KCM) current ones, which differ
// from the original proposal: a scheduled pod that references the claim
// blocks until the pod object is deleted, terminated or not; an unscheduled
// pod never blocks; a generic ephemeral volume's claim blocks only for the
// pod that owns it, until that pod is shut down (rules.go).
//
// Its invariant: a claim is never released while its pod cache may be
// missing a pod that uses it. Where KCM lists every pod of the namespace
// live for each batch of deletions, this controller proves its cache fresh
// enough instead (freshness.go, probe.go): one list that matches nothing
// gives a resourceVersion F at least as new as every pod write made before
// the claim was seen deleting, and the claim is decided once the pod index
// has applied every pod event of the namespace up to F, which a short watch
// replays when the index is behind. A namespace of at most 100 pods is
// listed live instead, bounded, and a watch too far behind falls back to
// one live list. One check serves every claim of the namespace seen
// deleting before it started.
//
// It is a reconcile.Loop keyed by the claim's cache.ObjectName; the
// finalizer is written through package finalizer, with an update pinned to
// the claim's resourceVersion and UID. What it remembers is rebuilt after a
// restart. A held claim gets a DeletionHeldByPod event and a
// DeletionReleased event when the hold ends; the metrics are in metrics.go.
//
// See docs/volume-protection.md for the scope, the rules and why they differ
// from the original proposal, the proof that the cache check is race-free,
// and its cost.
package pvcprotection
