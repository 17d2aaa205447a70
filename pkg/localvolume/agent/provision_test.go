package agent

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

func TestLocalVolumeDevicePathsBecomeVolumes(t *testing.T) {
	h := newHost(t,
		disk{kname: "/dev/sdb", id: "wwn-0x5000c500a0000001", size: 100 << 30},
		disk{kname: "/dev/sdc", id: "ata-DISK_C", size: 200 << 30},
	)
	e := newEnv(t, h, nil, newLocalVolume("lv", []string{"/dev/sdb", "/dev/disk/by-id/ata-DISK_C"}))
	e.start()
	eventually(t, "two PVs", func() bool { return len(e.pvs()) == 2 })

	for _, want := range []struct {
		kname, id string
		size      int64
	}{{"/dev/sdb", "wwn-0x5000c500a0000001", 100 << 30}, {"/dev/sdc", "ata-DISK_C", 200 << 30}} {
		path := testRoot + "/local-sc/" + want.id
		if got := h.Readlink(path); got != "/dev/disk/by-id/"+want.id {
			t.Errorf("symlink %s -> %q, want the stable name", path, got)
		}
		pv := e.mustPV(PVName(testNode, path))
		wantLabels := map[string]string{
			local.OwnerKindLabel: KindLocalVolume, local.OwnerNameLabel: "lv", local.OwnerNamespaceLabel: testNS,
			local.NodeLabel: testHostname,
		}
		for k, v := range wantLabels {
			if pv.Labels[k] != v {
				t.Errorf("%s: label %s = %q, want %q", pv.Name, k, pv.Labels[k], v)
			}
		}
		if !slices.Equal(pv.Finalizers, []string{local.SymlinkDeleterFinalizer}) {
			t.Errorf("%s: finalizers %v", pv.Name, pv.Finalizers)
		}
		if pv.Spec.Local == nil || pv.Spec.Local.Path != path || pv.Spec.Local.FSType == nil || *pv.Spec.Local.FSType != "xfs" {
			t.Errorf("%s: local source %+v", pv.Name, pv.Spec.Local)
		}
		if pv.Spec.VolumeMode == nil || *pv.Spec.VolumeMode != corev1.PersistentVolumeFilesystem {
			t.Errorf("%s: volumeMode %v", pv.Name, pv.Spec.VolumeMode)
		}
		if pv.Spec.StorageClassName != "local-sc" || pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
			t.Errorf("%s: class %q, reclaim %q", pv.Name, pv.Spec.StorageClassName, pv.Spec.PersistentVolumeReclaimPolicy)
		}
		if q := pv.Spec.Capacity[corev1.ResourceStorage]; q.Cmp(*resource.NewQuantity(want.size, resource.BinarySI)) != 0 {
			t.Errorf("%s: capacity %s", pv.Name, q.String())
		}
		terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
		if len(terms) != 1 || len(terms[0].MatchExpressions) != 1 ||
			terms[0].MatchExpressions[0].Key != local.NodeLabel ||
			terms[0].MatchExpressions[0].Operator != corev1.NodeSelectorOpIn ||
			!slices.Equal(terms[0].MatchExpressions[0].Values, []string{testHostname}) {
			t.Errorf("%s: node affinity %+v", pv.Name, terms)
		}
		if pv.Annotations[AnnotationDeviceKernelPath] != want.kname || pv.Annotations[AnnotationDeviceStableName] != "/dev/disk/by-id/"+want.id {
			t.Errorf("%s: annotations %v", pv.Name, pv.Annotations)
		}
	}
	e.nextSync(ownerKey(KindLocalVolume, testNS, "lv"))
	if n := len(e.pvs()); n != 2 {
		t.Errorf("%d PVs after another discovery, want still 2", n)
	}
	if got := e.metric("volumes_created_total"); got != 2 {
		t.Errorf("volumes_created_total = %v, want 2", got)
	}
	if got := e.Events.WithReason(ReasonVolumeCreated); len(got) != 2 {
		t.Errorf("VolumeCreated events %q, want 2", got)
	}
}

// Without a hostname label the node's name pins the PVs.
func TestHostnameFallsBackToNodeName(t *testing.T) {
	h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1"})
	e := newEnv(t, h, map[string]string{"other": "x"}, newLocalVolume("lv", []string{"/dev/sdb"}))
	e.start()
	eventually(t, "a PV", func() bool { return len(e.pvs()) == 1 })
	pv := e.pvs()[0]
	if pv.Labels[local.NodeLabel] != testNode ||
		pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != testNode {
		t.Errorf("PV not pinned to the node name: labels %v, affinity %+v", pv.Labels, pv.Spec.NodeAffinity)
	}
}

func TestLocalVolumeSetFilterAndMaxDeviceCount(t *testing.T) {
	h := newHost(t,
		disk{kname: "/dev/sdb", id: "wwn-0x3", size: 100 << 30, model: "FAST SSD"},
		disk{kname: "/dev/sdc", id: "wwn-0x1", size: 200 << 30, model: "FAST SSD"},
		disk{kname: "/dev/sdd", id: "wwn-0x0", size: 200 << 30, rotational: true, model: "FAST SSD"}, // rotational
		disk{kname: "/dev/sde", id: "wwn-0x00", size: 10 << 30, model: "FAST SSD"},                   // too small
		disk{kname: "/dev/sdf", id: "wwn-0x2", size: 300 << 30, model: "FAST SSD"},
		disk{kname: "/dev/sdg", id: "wwn-0x01", size: 300 << 30, model: "SLOW"}, // wrong model
	)
	minSize := resource.MustParse("50Gi")
	maxCount := int32(2)
	lvs := newLocalVolumeSet("set", func(s *localv1alpha1.LocalVolumeSet) {
		s.Spec.MaxDeviceCount = &maxCount
		s.Spec.DeviceInclusionSpec = &localv1alpha1.DeviceInclusionSpec{
			DeviceTypes:                []localv1alpha1.DeviceType{localv1alpha1.RawDisk},
			DeviceMechanicalProperties: []localv1alpha1.DeviceMechanicalProperty{localv1alpha1.NonRotational},
			MinSize:                    &minSize,
			Models:                     []string{"FAST"},
		}
	})
	e := newEnv(t, h, nil, lvs)
	e.start()
	eventually(t, "two PVs", func() bool { return len(e.pvs()) == 2 })
	e.nextSync(ownerKey(KindLocalVolumeSet, testNS, "set"))
	pvs := e.pvs()
	if len(pvs) != 2 {
		t.Fatalf("%d PVs, want maxDeviceCount 2", len(pvs))
	}
	// Selected devices are taken in stable-name order: wwn-0x1 (sdc), then
	// wwn-0x2 (sdf); sdb (wwn-0x3) is over the cap.
	var got []string
	for _, pv := range pvs {
		got = append(got, pv.Annotations[AnnotationDeviceKernelPath])
		if pv.Spec.VolumeMode == nil || *pv.Spec.VolumeMode != corev1.PersistentVolumeBlock || pv.Spec.Local.FSType != nil {
			t.Errorf("%s: want Block without fsType, got mode %v fsType %v", pv.Name, pv.Spec.VolumeMode, pv.Spec.Local.FSType)
		}
		if pv.Labels[local.OwnerKindLabel] != KindLocalVolumeSet || pv.Spec.StorageClassName != "set-sc" {
			t.Errorf("%s: labels %v, class %s", pv.Name, pv.Labels, pv.Spec.StorageClassName)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"/dev/sdc", "/dev/sdf"}) {
		t.Errorf("devices used %v, want /dev/sdc and /dev/sdf", got)
	}
	// Not matching the filter is not worth an event.
	if ev := e.Events.WithReason(ReasonDeviceRejected); len(ev) != 0 {
		t.Errorf("DeviceRejected events %q, want none", ev)
	}
}

func TestMountedDeviceGetsNoVolumeAndOneEvent(t *testing.T) {
	h := newHost(t,
		disk{kname: "/dev/sdb", id: "wwn-0x1"},
		disk{kname: "/dev/sdc", id: "wwn-0x2"},
	)
	h.mount("/dev/sdc")
	e := newEnv(t, h, nil, newLocalVolume("lv", []string{"/dev/sdb", "/dev/sdc"}))
	e.start()
	eventually(t, "a PV", func() bool { return len(e.pvs()) == 1 })
	e.nextSync(ownerKey(KindLocalVolume, testNS, "lv"))
	pvs := e.pvs()
	if len(pvs) != 1 || pvs[0].Annotations[AnnotationDeviceKernelPath] != "/dev/sdb" {
		t.Fatalf("PVs %v, want one for /dev/sdb", pvs)
	}
	if h.Exists(testRoot + "/local-sc/wwn-0x2") {
		t.Error("a symlink was made for the mounted device")
	}
	ev := e.Events.WithReason(ReasonDeviceRejected)
	if len(ev) != 1 || !strings.Contains(ev[0], "/dev/sdc") || !strings.Contains(ev[0], "Mounted") {
		t.Errorf("DeviceRejected events %q, want one for /dev/sdc, Mounted", ev)
	}
}

// A device with a filesystem is only used with forceWipeDevicesAndDestroyAllData.
func TestDeviceWithFilesystemNeedsForce(t *testing.T) {
	h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1", fsType: "ext4"})
	e := newEnv(t, h, nil, newLocalVolume("lv", []string{"/dev/sdb"}))
	e.start()
	eventually(t, "a rejection", func() bool { return len(e.Events.WithReason(ReasonDeviceRejected)) == 1 })
	if n := len(e.pvs()); n != 0 {
		t.Fatalf("%d PVs, want none", n)
	}
	e.setOwner(newLocalVolume("lv", []string{"/dev/sdb"}, func(lv *localv1.LocalVolume) {
		lv.Spec.StorageClassDevices[0].ForceWipeDevicesAndDestroyAllData = true
	}))
	eventually(t, "a PV with force", func() bool { return len(e.pvs()) == 1 })
}

func TestNodeNotSelectedGetsNothing(t *testing.T) {
	h := newHost(t,
		disk{kname: "/dev/sdb", id: "wwn-0x1"},
		disk{kname: "/dev/sdc", id: "wwn-0x2"},
	)
	other := newLocalVolume("other", []string{"/dev/sdb"}, func(lv *localv1.LocalVolume) {
		lv.Spec.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: local.NodeLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{"host-b"}}},
		}}}
	})
	otherSet := newLocalVolumeSet("other-set", func(s *localv1alpha1.LocalVolumeSet) {
		s.Spec.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-b"}}},
		}}}
	})
	mine := newLocalVolume("mine", []string{"/dev/sdc"}, func(lv *localv1.LocalVolume) {
		lv.Spec.StorageClassDevices[0].StorageClassName = "mine-sc"
		lv.Spec.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{testNode}}},
		}}}
	})
	e := newEnv(t, h, nil, other, otherSet, mine)
	e.start()
	eventually(t, "the selected owner's PV", func() bool { return len(e.pvs()) == 1 })
	e.nextSync(ownerKey(KindLocalVolume, testNS, "other"))
	e.nextSync(ownerKey(KindLocalVolumeSet, testNS, "other-set"))
	pvs := e.pvs()
	if len(pvs) != 1 || pvs[0].Labels[local.OwnerNameLabel] != "mine" {
		t.Fatalf("PVs %v, want only mine's", pvs)
	}
	if h.Exists(testRoot + "/local-sc") {
		t.Error("a symlink was made for an owner that does not select this node")
	}
}

func TestOwnerBeingDeletedGetsNoNewVolumes(t *testing.T) {
	h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1"})
	lv := newLocalVolume("lv", []string{"/dev/sdb"}, func(lv *localv1.LocalVolume) { deletingNow(lv) })
	lvs := newLocalVolumeSet("set", func(s *localv1alpha1.LocalVolumeSet) { deletingNow(s) })
	e := newEnv(t, h, nil, lv, lvs)
	e.start()
	e.nextSync(ownerKey(KindLocalVolume, testNS, "lv"))
	e.nextSync(ownerKey(KindLocalVolumeSet, testNS, "set"))
	if n := len(e.pvs()); n != 0 {
		t.Errorf("%d PVs for owners being deleted, want none", n)
	}
	if h.Exists(testRoot+"/local-sc") || h.Exists(testRoot+"/set-sc") {
		t.Error("a symlink was made for an owner being deleted")
	}
}

// Two owners naming the same disk: the first one's volume keeps it.
func TestDeviceUsedByAnotherOwnerIsNotClaimedTwice(t *testing.T) {
	h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1"})
	e := newEnv(t, h, nil, newLocalVolume("first", []string{"/dev/sdb"}))
	e.start()
	eventually(t, "a PV", func() bool { return len(e.pvs()) == 1 })
	e.setOwner(newLocalVolume("second", []string{"/dev/disk/by-id/wwn-0x1"}, func(lv *localv1.LocalVolume) {
		lv.Spec.StorageClassDevices[0].StorageClassName = "other-sc"
	}))
	eventually(t, "a rejection", func() bool { return len(e.Events.WithReason(ReasonDeviceRejected)) == 1 })
	e.nextSync(ownerKey(KindLocalVolume, testNS, "second"))
	if n := len(e.pvs()); n != 1 {
		t.Errorf("%d PVs, want 1", n)
	}
	if h.Exists(testRoot + "/other-sc/wwn-0x1") {
		t.Error("a second symlink to the same disk")
	}
}

func TestPVNameIsDeterministic(t *testing.T) {
	a := PVName("node-a", "/mnt/local-storage/sc/wwn-0x1")
	if a != PVName("node-a", "/mnt/local-storage/sc/wwn-0x1") {
		t.Error("same inputs, different names")
	}
	if !regexp.MustCompile(`^local-pv-[0-9a-f]{16}$`).MatchString(a) {
		t.Errorf("name %q, want local-pv- and 16 hex digits", a)
	}
	for _, other := range []string{
		PVName("node-b", "/mnt/local-storage/sc/wwn-0x1"),
		PVName("node-a", "/mnt/local-storage/sc/wwn-0x2"),
		// The separator keeps node and path apart.
		PVName("node-a/mnt", "/local-storage/sc/wwn-0x1"),
	} {
		if other == a {
			t.Errorf("different inputs share the name %s", a)
		}
	}
	// sha256("node-a\x00/mnt/local-storage/sc/wwn-0x1"), first 8 bytes.
	if a != "local-pv-"+wantHash(t) {
		t.Errorf("name %s", a)
	}
}

func wantHash(t *testing.T) string {
	t.Helper()
	return sha256Prefix("node-a\x00/mnt/local-storage/sc/wwn-0x1")
}
