package rollback

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
)

// Kept volumes are never written, whatever the mode; each says what
// upstream would do with it.
func TestKeptVolumes(t *testing.T) {
	danger := keptPV("pvc-danger")
	danger.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
	expired := keptPV("pvc-expired")
	expired.Annotations[recyclebin.AnnRetainedUntil] = passedDeadline
	restore := keptPV("pvc-restore")
	restore.Annotations[recyclebin.AnnRestoreTo] = "other/data-again"
	purge := keptPV("pvc-purge")
	purge.Annotations[recyclebin.AnnPurge] = "true"
	deleted := keptPV("pvc-deleted")
	deleted.DeletionTimestamp = &metav1.Time{Time: now}
	deletedRetain := keptPV("pvc-deleted-retain")
	deletedRetain.DeletionTimestamp = &metav1.Time{Time: now}
	deletedRetain.Finalizers = deletedRetain.Finalizers[:2]
	unlabelled := keptPV("pvc-unlabelled")
	delete(unlabelled.Labels, recyclebin.LabelRetained)
	retainOnly := keptPV("pvc-retain-only")
	delete(retainOnly.Annotations, recyclebin.AnnRetainedUntil)
	delete(retainOnly.Annotations, recyclebin.AnnReclaimPolicy)

	tests := []struct {
		pv   *v1.PersistentVolume
		verb Verb
		why  string
	}{
		{keptPV("pvc-kept"), Kept, "until " + deadline + "; upstream will not expire it"},
		{unlabelled, Kept, "until " + deadline + "; upstream will not expire it"},
		{retainOnly, Kept, "reclaim policy Retain; upstream never deletes it"},
		{expired, Kept, "its deadline " + passedDeadline + " has passed, and upstream will not expire it"},
		{danger, NeedsYou, "DANGER: reclaim policy Delete: upstream deletes this volume and its data within seconds of starting: run this sidecar until it has protected it"},
		{restore, NeedsYou, "upstream will not act on restore-to"},
		{purge, NeedsYou, "upstream will not act on purge"},
		{deleted, NeedsYou, "being deleted: let this sidecar delete its volume first; upstream never removes finalizer recycle-bin"},
		{deletedRetain, NeedsYou, "upstream would let the PV go and leave its volume behind"},
	}
	var objs []runtime.Object
	for _, tc := range tests {
		objs = append(objs, tc.pv.DeepCopy())
	}
	e := newEnv(objs...)
	r := e.run(t, ModeClear)
	for _, tc := range tests {
		f := only(t, r, kindVolume, tc.pv.Name)
		requireAction(t, f, tc.verb, tc.why)
		if f.Driver != driver {
			t.Errorf("%s: driver %q", tc.pv.Name, f.Driver)
		}
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("volumes were written: %v", w)
	}
	if r.Verdict.KeptVolumes != 4 || r.Verdict.NeedsYou != 5 {
		t.Errorf("verdict %+v, want 4 kept volumes and 5 that need you", r.Verdict)
	}
}

// The row names the claim a volume came from, its deadline and the
// requests upstream would not act on.
func TestKeptVolumeSaysWhereItCameFrom(t *testing.T) {
	pv := keptPV("pvc-1")
	pv.Annotations[recyclebin.AnnRestoreTo] = "other/data-again"
	pv.Annotations[recyclebin.AnnPurge] = "true"
	f := only(t, newEnv(pv).run(t, ModeReport), kindVolume, "pvc-1")
	want := "kept volume of the recycle bin, from shop/data-0, until " + deadline + ", restore to other/data-again asked, purge asked"
	if f.What != want {
		t.Errorf("what %q\nwant %q", f.What, want)
	}
}

// A give-back not yet bound is a Released PV of policy Delete to upstream.
func TestGiveBackNotBoundYetNeedsYou(t *testing.T) {
	pv := keptPV("pvc-given")
	pv.Labels, pv.Finalizers = map[string]string{"team": "shop"}, nil
	pv.Annotations = map[string]string{recyclebin.AnnRestoredTo: "other/data-again 1234"}
	pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
	bound := pv.DeepCopy()
	bound.Name, bound.Status.Phase = "pvc-bound", v1.VolumeBound

	r := newEnv(pv, bound).run(t, ModeClear)

	f := only(t, r, kindVolume, "pvc-given")
	requireAction(t, f, NeedsYou, "upstream would delete it while it is Released: wait until it is Bound")
	if f.What != "given back to other/data-again, not bound yet" {
		t.Errorf("what %q", f.What)
	}
	if slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Name == "pvc-bound" }) {
		t.Error("a bound give-back is reported")
	}
}

// A volume given back keeps the bin's protection until it is bound to its
// new claim; upstream would keep it for ever.
func TestGiveBackStillProtectedNeedsYou(t *testing.T) {
	pv := keptPV("pvc-given")
	pv.Labels = map[string]string{"team": "shop"}
	pv.Annotations = map[string]string{recyclebin.AnnRestoredTo: "other/data-again 1234", recyclebin.AnnReclaimPolicy: "Delete"}
	r := newEnv(pv).run(t, ModeClear)
	f := only(t, r, kindVolume, "pvc-given")
	requireAction(t, f, NeedsYou, "wait until it is Bound and this sidecar has given back its reclaim policy")
	if want := "given back to other/data-again; reclaim policy Retain, reclaim-policy Delete, finalizer recycle-bin"; f.What != want {
		t.Errorf("what %q\nwant %q", f.What, want)
	}
}

// The bin's protection without its records would hold the volume and a
// deletion of the PV for ever.
func TestStrayProtectionOfTheBinNeedsYou(t *testing.T) {
	pv := keptPV("pvc-stray")
	pv.Labels = nil
	pv.Annotations = map[string]string{driverscope.AnnProvisionedBy: driver}
	pv.Status.Phase = v1.VolumeBound
	r := newEnv(pv).run(t, ModeClear)
	f := only(t, r, kindVolume, "pvc-stray")
	requireAction(t, f, NeedsYou, "upstream never gives the policy back nor removes the finalizer")
	if want := "reclaim policy Retain, finalizer recycle-bin, without the bin's records"; f.What != want {
		t.Errorf("what %q\nwant %q", f.What, want)
	}
}

// PVs without anything of the bin's are not reported.
func TestOrdinaryVolumesAreNotReported(t *testing.T) {
	pv := keptPV("pvc-plain")
	pv.Labels, pv.Annotations, pv.Finalizers = nil, nil, nil
	pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
	if r := newEnv(pv).run(t, ModeClear); len(r.Findings) != 0 {
		t.Errorf("findings %+v", r.Findings)
	}
}
