package rollback

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
)

// volumeFindings are what upstream would mishandle of pv: a kept volume of
// the recycle bin, a give-back not bound yet, or the bin's protection
// (reclaim policy Retain with the policy it had recorded, its finalizer)
// on a volume it no longer keeps. Nothing here is cleared: each holds
// data, and the policy to give back is the bin's to decide.
func volumeFindings(pv *v1.PersistentVolume, now time.Time) []Finding {
	f := Finding{Kind: kindVolume, Name: pv.Name, Driver: driverscope.VolumeProvisioner(pv)}
	_, hasDeadline := pv.Annotations[recyclebin.AnnRetainedUntil]
	restoredTo, givenBack := pv.Annotations[recyclebin.AnnRestoredTo]
	switch {
	case pv.Labels[recyclebin.LabelRetained] == "true" || hasDeadline:
		f.What, f.Action = keptVolume(pv, now)
	case givenBack && pv.Status.Phase == v1.VolumeReleased && pv.Spec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimDelete && pv.DeletionTimestamp == nil:
		// This sidecar knows the PV is being bound to the claim it was
		// given to; upstream sees a Released PV of policy Delete.
		f.What = "given back to " + claimOf(restoredTo) + ", not bound yet"
		f.Action = needsYou("upstream would delete it while it is Released: wait until it is Bound, then run this again")
	case givenBack && protectedByTheBin(pv):
		// The bin gives the policy back, and removes its finalizer, once
		// the volume is bound to its new claim; upstream never does.
		f.What = "given back to " + claimOf(restoredTo) + "; " + binProtection(pv)
		f.Action = needsYou("wait until it is Bound and this sidecar has given back its reclaim policy: under upstream its volume would outlive its new claim, and a deletion of the PV stay Terminating")
	case protectedByTheBin(pv):
		f.What = binProtection(pv) + ", without the bin's records"
		f.Action = needsYou("upstream never gives the policy back nor removes the finalizer: run this sidecar until it has, or patch the PV as docs/back-to-upstream.md says")
	default:
		return nil
	}
	return []Finding{f}
}

// protectedByTheBin tells whether pv carries the bin's protection of a kept
// volume: the policy it had recorded, or the bin's finalizer.
func protectedByTheBin(pv *v1.PersistentVolume) bool {
	_, recorded := pv.Annotations[recyclebin.AnnReclaimPolicy]
	return recorded || finalizer.Has(pv, recyclebin.FinalizerKept)
}

// binProtection describes the bin's protection on pv.
func binProtection(pv *v1.PersistentVolume) string {
	what := []string{"reclaim policy " + string(pv.Spec.PersistentVolumeReclaimPolicy)}
	if policy, recorded := pv.Annotations[recyclebin.AnnReclaimPolicy]; recorded {
		what = append(what, fmt.Sprintf("%s %s", short(recyclebin.AnnReclaimPolicy), policy))
	}
	if finalizer.Has(pv, recyclebin.FinalizerKept) {
		what = append(what, "finalizer "+short(recyclebin.FinalizerKept))
	}
	return strings.Join(what, ", ")
}

// keptVolume describes a kept volume and what upstream would do with it.
func keptVolume(pv *v1.PersistentVolume, now time.Time) (string, Action) {
	deadline, hasDeadline := pv.Annotations[recyclebin.AnnRetainedUntil]
	what := []string{"kept volume of the recycle bin"}
	if from := pv.Annotations[recyclebin.AnnRetainedFrom]; from != "" {
		what = append(what, "from "+claimOf(from))
	}
	if hasDeadline {
		what = append(what, "until "+deadline)
	}
	restore, restoreAsked := pv.Annotations[recyclebin.AnnRestoreTo]
	if restoreAsked {
		what = append(what, "restore to "+restore+" asked")
	}
	purgeAsked := pv.Annotations[recyclebin.AnnPurge] == "true"
	if purgeAsked {
		what = append(what, "purge asked")
	}
	hasFinalizer := finalizer.Has(pv, recyclebin.FinalizerKept)
	policy := pv.Spec.PersistentVolumeReclaimPolicy
	var action Action
	switch {
	case pv.DeletionTimestamp != nil && hasFinalizer:
		action = needsYou(fmt.Sprintf("being deleted: let this sidecar delete its volume first; upstream never removes finalizer %s, so the PV would stay Terminating", short(recyclebin.FinalizerKept)))
	case pv.DeletionTimestamp != nil && policy != v1.PersistentVolumeReclaimDelete:
		action = needsYou("being deleted: let this sidecar delete its volume first; upstream would let the PV go and leave its volume behind in the backend")
	case pv.DeletionTimestamp != nil:
		action = noAction("being deleted; upstream deletes its volume, as the deletion asks")
	case policy != v1.PersistentVolumeReclaimRetain:
		action = needsYou(fmt.Sprintf("DANGER: reclaim policy %s: upstream deletes this volume and its data within seconds of starting: run this sidecar until it has protected it (reclaim policy Retain)", policy))
	case restoreAsked:
		action = needsYou(fmt.Sprintf("upstream will not act on %s: let this sidecar give it back first, or remove the annotation", short(recyclebin.AnnRestoreTo)))
	case purgeAsked:
		action = needsYou(fmt.Sprintf("upstream will not act on %s: let this sidecar delete it first, or remove the annotation", short(recyclebin.AnnPurge)))
	default:
		action = kept(keptWhy(deadline, now))
	}
	return strings.Join(what, ", "), action
}

// keptWhy says why a kept volume of policy Retain is safe under upstream
// (whether or not the bin recorded the policy it had before, in
// recyclebin.AnnReclaimPolicy: Retain alone keeps it).
func keptWhy(deadline string, now time.Time) string {
	switch until, err := time.Parse(time.RFC3339, deadline); {
	case deadline == "":
		return "reclaim policy Retain; upstream never deletes it"
	case err == nil && !now.Before(until):
		return fmt.Sprintf("its deadline %s has passed, and upstream will not expire it: delete it yourself once it is not needed", deadline)
	}
	return fmt.Sprintf("until %s; upstream will not expire it", deadline)
}

// claimOf is the "namespace/name" of the bin's claim annotations, which
// may add " uid".
func claimOf(value string) string {
	name, _, _ := strings.Cut(value, " ")
	return name
}
