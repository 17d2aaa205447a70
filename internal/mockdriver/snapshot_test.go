package mockdriver

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func snapshotSource(snapshotID string) *csi.VolumeContentSource {
	return &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Snapshot{
		Snapshot: &csi.VolumeContentSource_SnapshotSource{SnapshotId: snapshotID},
	}}
}

func mustSnapshot(t *testing.T, td *testDriver, name, volumeID string) *csi.Snapshot {
	t.Helper()
	resp, err := td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: name, SourceVolumeId: volumeID})
	if err != nil {
		t.Fatalf("CreateSnapshot(%q): %v", name, err)
	}
	return resp.GetSnapshot()
}

func deleteSnapshot(t *testing.T, td *testDriver, id string) {
	t.Helper()
	if _, err := td.controller.DeleteSnapshot(callCtx(t), &csi.DeleteSnapshotRequest{SnapshotId: id}); err != nil {
		t.Fatalf("DeleteSnapshot(%s): %v", id, err)
	}
}

func hasControllerCapability(t *testing.T, td *testDriver, want csi.ControllerServiceCapability_RPC_Type) bool {
	t.Helper()
	resp, err := td.controller.ControllerGetCapabilities(callCtx(t), &csi.ControllerGetCapabilitiesRequest{})
	if err != nil {
		t.Fatalf("ControllerGetCapabilities: %v", err)
	}
	return slices.ContainsFunc(resp.GetCapabilities(), func(c *csi.ControllerServiceCapability) bool {
		return c.GetRpc().GetType() == want
	})
}

func TestCreateSnapshotRecordsTheSourceVolume(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	td := startDriver(t, Config{StateFile: stateFile})
	vol := mustCreate(t, td, createReq("pvc-1", 2*gib))
	before := time.Now()
	resp, err := td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{
		Name:           "snap-1",
		SourceVolumeId: vol.GetVolumeId(),
		Parameters:     map[string]string{"class": "daily"},
		Secrets:        map[string]string{"token": "s3cr3t-value"},
	})
	if err != nil {
		t.Fatalf("CreateSnapshot: %v", err)
	}

	snap := resp.GetSnapshot()
	if snap.GetSourceVolumeId() != vol.GetVolumeId() || snap.GetSizeBytes() != 2*gib || !snap.GetReadyToUse() ||
		snap.GetCreationTime().AsTime().Before(before.Truncate(time.Second)) {
		t.Fatalf("snapshot %v, want a ready 2Gi snapshot of %s cut now", snap, vol.GetVolumeId())
	}
	stored := td.Snapshots()
	if len(stored) != 1 {
		t.Fatalf("driver holds %d snapshots, want 1", len(stored))
	}
	got := stored[0]
	if got.ID != snap.GetSnapshotId() || got.Name != "snap-1" || got.SourceVolumeID != vol.GetVolumeId() ||
		got.SizeBytes != 2*gib || !got.ReadyToUse || !got.CreationTime.Equal(snap.GetCreationTime().AsTime()) ||
		!maps.Equal(got.Parameters, map[string]string{"class": "daily"}) || !slices.Equal(got.SecretKeys, []string{"token"}) {
		t.Fatalf("stored snapshot %+v", got)
	}
	wantNoSecretValue(t, stateFile)
}

func TestCreateSnapshotIsIdempotentByName(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	first := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	second := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	if second.GetSnapshotId() != first.GetSnapshotId() || !second.GetCreationTime().AsTime().Equal(first.GetCreationTime().AsTime()) {
		t.Fatalf("retry returned %v, first call %v", second, first)
	}
	if got := len(td.Snapshots()); got != 1 {
		t.Fatalf("driver holds %d snapshots, want 1", got)
	}

	t.Run("retry after the source is gone", func(t *testing.T) {
		if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()}); err != nil {
			t.Fatalf("DeleteVolume: %v", err)
		}
		if again := mustSnapshot(t, td, "snap-1", vol.GetVolumeId()); again.GetSnapshotId() != first.GetSnapshotId() {
			t.Fatalf("retry returned %s, want %s", again.GetSnapshotId(), first.GetSnapshotId())
		}
	})
}

func TestCreateSnapshotErrors(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	other := mustCreate(t, td, createReq("pvc-2", gib))
	mustSnapshot(t, td, "snap-1", vol.GetVolumeId())

	cases := []struct {
		name string
		req  *csi.CreateSnapshotRequest
		want codes.Code
	}{
		{"same name, other source", &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: other.GetVolumeId()}, codes.AlreadyExists},
		{"missing source volume", &csi.CreateSnapshotRequest{Name: "snap-2", SourceVolumeId: "mock-0000000000000000"}, codes.NotFound},
		{"no name", &csi.CreateSnapshotRequest{SourceVolumeId: vol.GetVolumeId()}, codes.InvalidArgument},
		{"no source", &csi.CreateSnapshotRequest{Name: "snap-3"}, codes.InvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := td.controller.CreateSnapshot(callCtx(t), tc.req)
			wantCode(t, err, tc.want)
		})
	}
	if got := len(td.Snapshots()); got != 1 {
		t.Fatalf("failed calls changed the snapshots: %d, want 1", got)
	}
}

func TestDeleteSnapshot(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	kept := mustSnapshot(t, td, "kept", vol.GetVolumeId())
	gone := mustSnapshot(t, td, "gone", vol.GetVolumeId())

	// Deleting is idempotent: a second call and an unknown id succeed.
	deleteSnapshot(t, td, gone.GetSnapshotId())
	deleteSnapshot(t, td, gone.GetSnapshotId())
	deleteSnapshot(t, td, "snap-never-existed")
	if snaps := td.Snapshots(); len(snaps) != 1 || snaps[0].ID != kept.GetSnapshotId() {
		t.Fatalf("snapshots left %+v, want only %s", snaps, kept.GetSnapshotId())
	}
	_, err := td.controller.DeleteSnapshot(callCtx(t), &csi.DeleteSnapshotRequest{})
	wantCode(t, err, codes.InvalidArgument)
	if got := td.Calls("DeleteSnapshot"); got != 4 {
		t.Fatalf("Calls(DeleteSnapshot) = %d, want 4", got)
	}
}

// Most backends let a volume go while its snapshots stay; so does the
// driver, and the snapshots remain usable.
func TestDeletingAVolumeKeepsItsSnapshots(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()}); err != nil {
		t.Fatalf("DeleteVolume of a volume with a snapshot: %v", err)
	}
	if snaps := td.Snapshots(); len(snaps) != 1 || snaps[0].SourceVolumeID != vol.GetVolumeId() {
		t.Fatalf("snapshots after deleting their volume: %+v", snaps)
	}
	req := createReq("restored", gib)
	req.VolumeContentSource = snapshotSource(snap.GetSnapshotId())
	mustCreate(t, td, req)
}

func TestSnapshotCapabilitiesAreOnByDefault(t *testing.T) {
	td := startDriver(t, Config{})
	for _, c := range []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT,
		csi.ControllerServiceCapability_RPC_LIST_SNAPSHOTS,
	} {
		if !hasControllerCapability(t, td, c) {
			t.Errorf("%v not advertised", c)
		}
	}
}

func TestDriverWithoutSnapshots(t *testing.T) {
	td := startDriver(t, Config{DisableSnapshots: true})
	for _, c := range []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT,
		csi.ControllerServiceCapability_RPC_LIST_SNAPSHOTS,
	} {
		if hasControllerCapability(t, td, c) {
			t.Errorf("a driver without snapshots advertises %v", c)
		}
	}
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	_, err := td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.Unimplemented)
	_, err = td.controller.DeleteSnapshot(callCtx(t), &csi.DeleteSnapshotRequest{SnapshotId: "snap-1"})
	wantCode(t, err, codes.Unimplemented)
	_, err = td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{})
	wantCode(t, err, codes.Unimplemented)

	// The spec answers an unsupported content source with InvalidArgument.
	req := createReq("pvc-2", gib)
	req.VolumeContentSource = snapshotSource("snap-1")
	_, err = td.controller.CreateVolume(callCtx(t), req)
	wantCode(t, err, codes.InvalidArgument)
}
