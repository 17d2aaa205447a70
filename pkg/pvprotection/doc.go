// Package pvprotection keeps the kubernetes.io/pv-protection finalizer on
// the PersistentVolumes of this driver: a PV that is deleted while a claim is
// still bound to it stays until the claim lets go of it.
//
// It follows the rules of kube-controller-manager's pvprotection controller
// and uses the same finalizer, so the two agree and either may run alone:
//
//   - a PV that is not being deleted gets the finalizer if it lacks it (the
//     admission plugin normally adds it; this covers PVs created while the
//     plugin was off);
//   - a PV being deleted keeps the finalizer while its phase is Bound, and
//     loses it as soon as it is not.
//
// It differs from kube-controller-manager's controller in four ways:
//
//   - Scope. By default it only looks at PVs whose spec.csi.driver is this
//     driver (Options.AllVolumes widens that), so a sidecar never writes
//     another driver's volumes and needs no more RBAC than it has.
//   - Events. A PV whose deletion is held gets one DeletionHeldByClaim event
//     naming the claim, and one DeletionReleased event when the hold ends,
//     so "why is my PV stuck in Terminating" has an answer on the PV itself.
//   - Metrics. The number of held PVs and the finalizer writes are exported.
//   - Writes. The finalizer is written with a JSON merge patch that carries
//     the PV's resourceVersion and UID (package finalizer) instead of an
//     Update of the whole object. The decision to remove it was made on one
//     version of the PV; if the PV changed since, for instance it became
//     Bound, the API server answers 409 Conflict and the PV is synced again
//     from the newer copy. A patch also cannot drop fields this binary's
//     API types do not know about, which an Update of a cached copy can.
//
// The controller is a reconcile.Loop keyed by PV name: the informer's
// handlers queue a PV whose finalizer is not what it should be (or that is
// held), and sync decides from the informer cache alone. A 409 Conflict is
// retried quietly from the newer copy. Everything it decides comes from the
// cache and the API server, so it is safe to restart at any point. The only
// memory it keeps is which PVs it has reported as held (a finalizer.Holds,
// which also keeps the gauge), so the events are not repeated on every sync;
// after a restart a held PV is reported once more.
package pvprotection
