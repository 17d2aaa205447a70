package controller

import (
	"context"
	"testing"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

func TestProtectedRestoreRecordsItsSnapshotHandleWithTheFinalizer(t *testing.T) {
	claim, snapshot, content := restoreFixture()
	e := restoreEnv(t, claim, snapshot, content, protectionOn)
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	live := e.apiClaim(t, claim.Name)
	if got := live.Annotations[provisionstate.AnnRestoredSnapshotHandle]; got != testSnapshotHandle {
		t.Fatalf("claim annotation %s = %q, want %q", provisionstate.AnnRestoredSnapshotHandle, got, testSnapshotHandle)
	}
}

func TestReplayOfARestoreFindsItsVolume(t *testing.T) {
	cases := []struct {
		name      string
		snapshots bool // the snapshot and its content still exist
	}{
		{"from the snapshot", true},
		{"from the recorded handle once the snapshot is gone", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claim, snapshot, content := restoreFixture()
			claim.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
			claim.Annotations = map[string]string{provisionstate.AnnRestoredSnapshotHandle: testSnapshotHandle}
			now := metav1.Now()
			claim.DeletionTimestamp = &now
			objs := envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{newClass(nil)}}
			if tc.snapshots {
				objs.snapshots = []*snapv1.VolumeSnapshot{snapshot}
				objs.contents = []*snapv1.VolumeSnapshotContent{content}
			}
			e := newEnv(t, objs, protectionOn)
			done, err := e.prov.ReplayAndDelete(context.Background(), claim)
			if err != nil || !done {
				t.Fatalf("done %v, err %v", done, err)
			}
			if got := e.csi.lastCreate(t).GetVolumeContentSource().GetSnapshot().GetSnapshotId(); got != testSnapshotHandle {
				t.Fatalf("replayed CreateVolume restores %q, want %q: the driver would see another request", got, testSnapshotHandle)
			}
			if len(e.csi.deletes) != 1 {
				t.Fatalf("deletes = %v, want the found volume deleted", e.csi.deletes)
			}
		})
	}
}
