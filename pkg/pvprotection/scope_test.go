package pvprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestAddsFinalizerToInScopePV(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{
		newPV("bare"),
		newPV("bound", testutil.BoundTo("ns", "db", "")),
		newPV("other", testutil.WithFinalizers("example.com/keep", Finalizer)),
	}})
	e.run(t)
	e.Eventually(t, "the finalizer on bare and bound", func() bool {
		return e.hasFinalizer(t, "bare") && e.hasFinalizer(t, "bound")
	})
	if got := testutil.PV(t, e.Client, "other").Finalizers; len(got) != 2 {
		t.Errorf("finalizers of a protected PV = %v; it must not be written", got)
	}
	// Two writes, not three: the PV that had it is left alone.
	if got := e.patches(); got != 2 {
		t.Errorf("patches = %d, want 2", got)
	}
	// Counted after the write returns, which the API shows first.
	e.Eventually(t, "finalizers_added_total = 2", func() bool { return e.metric(t, "finalizers_added_total") == 2 })
}

func TestAddKeepsOtherFinalizers(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{
		newPV("pv", testutil.WithFinalizers("example.com/keep")),
	}})
	if err := e.sync(t, "pv"); err != nil {
		t.Fatal(err)
	}
	got := testutil.PV(t, e.Client, "pv").Finalizers
	if len(got) != 2 || got[0] != "example.com/keep" || got[1] != Finalizer {
		t.Fatalf("finalizers = %v, want [example.com/keep %s]", got, Finalizer)
	}
	// A second sync on the updated cache writes nothing.
	if err := e.sync(t, "pv"); err != nil {
		t.Fatal(err)
	}
	if got := e.patches(); got != 1 {
		t.Fatalf("patches = %d, want 1", got)
	}
}

// outOfScope are PVs another driver, or no CSI driver, owns, in every state
// the controller would otherwise write.
func outOfScope() []*v1.PersistentVolume {
	return []*v1.PersistentVolume{
		newPV("other-add", driver(otherDriver)),
		newPV("other-remove", driver(otherDriver), protected, testutil.Deleting(), testutil.WithVolumePhase(v1.VolumeReleased)),
		newPV("intree-add", testutil.WithHostPath("/tmp")),
		newPV("intree-remove", testutil.WithHostPath("/tmp"), protected, testutil.Deleting(), testutil.WithVolumePhase(v1.VolumeReleased)),
	}
}

func TestOutOfScopePVsAreNeverWritten(t *testing.T) {
	// The workers see every PV through the informer; the syncs below then
	// try each out-of-scope PV directly, in case the filter let one through.
	e := newEnv(t, setup{volumes: append(outOfScope(), newPV("ours"))})
	e.run(t)
	e.Eventually(t, "the finalizer on ours", func() bool { return e.hasFinalizer(t, "ours") })
	for _, name := range []string{"other-add", "other-remove", "intree-add", "intree-remove"} {
		if err := e.syncNow(t, name); err != nil {
			t.Fatalf("sync %s: %v", name, err)
		}
	}
	if got := e.patches(); got != 1 {
		t.Fatalf("patches = %d, want only the one of ours", got)
	}
	if e.hasFinalizer(t, "other-add") || e.hasFinalizer(t, "intree-add") {
		t.Error("finalizer added to a PV out of scope")
	}
	if !e.hasFinalizer(t, "other-remove") || !e.hasFinalizer(t, "intree-remove") {
		t.Error("finalizer removed from a PV out of scope")
	}
	if ev := e.Events.Drain(); len(ev) != 0 {
		t.Errorf("events on PVs out of scope: %v", ev)
	}
}

func TestAllVolumesWidensScope(t *testing.T) {
	e := newEnv(t, setup{volumes: outOfScope(), allVolumes: true})
	e.run(t)
	e.Eventually(t, "every PV written", func() bool {
		return e.hasFinalizer(t, "other-add") && e.hasFinalizer(t, "intree-add") &&
			!e.hasFinalizer(t, "other-remove") && !e.hasFinalizer(t, "intree-remove")
	})
	e.Eventually(t, "finalizers_removed_total = 2", func() bool { return e.metric(t, "finalizers_removed_total") == 2 })
}

// ebsVolume makes the PV an in-tree aws-ebs volume.
var ebsVolume testutil.VolumeFunc = func(pv *v1.PersistentVolume) {
	pv.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"}}
}

// A driver that replaces an in-tree plugin protects that plugin's PVs,
// which it provisions and deletes, and no other in-tree PV.
func TestMigratedDriverProtectsItsInTreePVs(t *testing.T) {
	e := newEnv(t, setup{inTreePlugin: "kubernetes.io/aws-ebs", volumes: []*v1.PersistentVolume{
		newPV("ebs", ebsVolume), newPV("hostpath", testutil.WithHostPath("/tmp")),
	}})
	e.run(t)
	e.Eventually(t, "the finalizer on the in-tree EBS PV", func() bool { return e.hasFinalizer(t, "ebs") })
	if err := e.syncNow(t, "hostpath"); err != nil {
		t.Fatal(err)
	}
	if e.hasFinalizer(t, "hostpath") {
		t.Error("finalizer added to another plugin's in-tree PV")
	}
}
