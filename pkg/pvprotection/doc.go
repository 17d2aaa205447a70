// Package pvprotection is the sidecar's own PV protection controller (gate
// PVProtection): it keeps the kubernetes.io/pv-protection finalizer on the
// PersistentVolumes of this driver (and of the in-tree plugin it replaces;
// every PV with Options.AllVolumes), so that a PV deleted while a claim is
// still bound to it stays until the claim lets go of it.
//
// The rules are kube-controller-manager's, with the same finalizer, so the
// two agree and either may run alone: a PV that is not being deleted gets
// the finalizer if it lacks it, and a PV being deleted keeps it while its
// phase is Bound and loses it as soon as it is not.
//
// Its invariant: the finalizer is removed only from the version of the PV
// the decision was made on. The write is a JSON merge patch carrying the
// PV's resourceVersion and UID (package finalizer), so a PV that became
// Bound since makes it fail with 409 Conflict and is decided again.
//
// It is a reconcile.Loop keyed by PV name that decides from the informer
// cache alone, so it may restart at any point. A held PV gets one
// DeletionHeldByClaim event and a DeletionReleased event when the hold ends
// (a finalizer.Holds, which also keeps the held gauge).
//
// See docs/volume-protection.md for how it differs from
// kube-controller-manager's controller and why.
package pvprotection
