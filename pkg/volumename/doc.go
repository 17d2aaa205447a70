// Package volumename derives the names of a claim's volume: the PV's object
// name, which is always <prefix>-<UID> as upstream makes it, and the name
// CreateVolume gives the driver, which --volume-name-template may make
// readable (say {{.Namespace}}-{{.Name}}-{{.UIDShort}}). Every part of the
// sidecar that names a claim's volume asks this package, so provisioning,
// the replay of a deleted claim's CreateVolume and the orphan audit agree.
//
// A name is CreateVolume's idempotency key: two claims given one name would
// share one backend volume, and one claim given two names would leak the
// first. Hence a template must hold enough of the claim's UID to be unique,
// and the Spec a claim's provisioning began with is recorded on the claim
// (see Spec.Record), so that a template changed since never renames it.
package volumename
