package mockdriver

import (
	"os"
	"path/filepath"
	"testing"

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
		t.Fatalf("CreateSnapshot %s: %v", name, err)
	}
	return resp.GetSnapshot()
}

func TestSnapshotIsIdempotentByName(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	first := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	second := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	if first.GetSnapshotId() != second.GetSnapshotId() || len(td.Snapshots()) != 1 {
		t.Fatalf("retry made snapshot %s after %s; driver holds %d", second.GetSnapshotId(), first.GetSnapshotId(), len(td.Snapshots()))
	}
	if first.GetSizeBytes() != gib || !first.GetReadyToUse() || first.GetSourceVolumeId() != vol.GetVolumeId() {
		t.Fatalf("snapshot %+v, want a ready 1Gi snapshot of %s", first, vol.GetVolumeId())
	}
}

func TestSnapshotErrors(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	other := mustCreate(t, td, createReq("pvc-2", gib))
	mustSnapshot(t, td, "snap-1", vol.GetVolumeId())

	_, err := td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: other.GetVolumeId()})
	wantCode(t, err, codes.AlreadyExists)
	_, err = td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: "snap-2", SourceVolumeId: "no-such-volume"})
	wantCode(t, err, codes.NotFound)
	_, err = td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{SourceVolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.InvalidArgument)
	_, err = td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: "snap-3"})
	wantCode(t, err, codes.InvalidArgument)
	_, err = td.controller.DeleteSnapshot(callCtx(t), &csi.DeleteSnapshotRequest{})
	wantCode(t, err, codes.InvalidArgument)
}

func TestDeleteSnapshotIsIdempotent(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	for range 2 {
		if _, err := td.controller.DeleteSnapshot(callCtx(t), &csi.DeleteSnapshotRequest{SnapshotId: snap.GetSnapshotId()}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(td.Snapshots()); n != 0 {
		t.Fatalf("%d snapshots left", n)
	}
}

func TestRestoreCarriesTheSnapshotsData(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	// The source's data moves on after the snapshot; a clone of it now
	// would hold that, a restore must hold the snapshot's.
	req := createReq("pvc-2", 2*gib)
	req.VolumeContentSource = snapshotSource(snap.GetSnapshotId())
	restored := mustCreate(t, td, req)

	if got := restored.GetContentSource().GetSnapshot().GetSnapshotId(); got != snap.GetSnapshotId() {
		t.Fatalf("restored volume reports source %q, want snapshot %s", got, snap.GetSnapshotId())
	}
	vols := td.Volumes()
	if len(vols) != 2 || vols[1].SourceSnapshotID != snap.GetSnapshotId() {
		t.Fatalf("volumes %+v, want the restore recorded with its snapshot", vols)
	}
	if vols[1].DataID == "" || vols[1].DataID != vols[0].DataID {
		t.Fatalf("restore holds data %q, the snapshotted volume %q", vols[1].DataID, vols[0].DataID)
	}
	if again := mustCreate(t, td, req); again.GetVolumeId() != restored.GetVolumeId() {
		t.Fatalf("retry of the restore made volume %s, first %s", again.GetVolumeId(), restored.GetVolumeId())
	}
	// Same name, no snapshot: another request.
	plain := createReq("pvc-2", 2*gib)
	_, err := td.controller.CreateVolume(callCtx(t), plain)
	wantCode(t, err, codes.AlreadyExists)
}

func TestRestoreRefusals(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", 2*gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())

	small := createReq("pvc-small", gib)
	small.VolumeContentSource = snapshotSource(snap.GetSnapshotId())
	_, err := td.controller.CreateVolume(callCtx(t), small)
	wantCode(t, err, codes.OutOfRange)

	missing := createReq("pvc-missing", 2*gib)
	missing.VolumeContentSource = snapshotSource("snap-gone")
	_, err = td.controller.CreateVolume(callCtx(t), missing)
	wantCode(t, err, codes.NotFound)
}

func TestDriverWithoutSnapshots(t *testing.T) {
	td := startDriver(t, Config{DisableSnapshots: true})
	caps, err := td.controller.ControllerGetCapabilities(callCtx(t), &csi.ControllerGetCapabilitiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range caps.GetCapabilities() {
		if c.GetRpc().GetType() == csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT {
			t.Fatal("a driver without snapshots advertises CREATE_DELETE_SNAPSHOT")
		}
	}
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	_, err = td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.Unimplemented)
	req := createReq("pvc-2", gib)
	req.VolumeContentSource = snapshotSource("snap-1")
	_, err = td.controller.CreateVolume(callCtx(t), req)
	wantCode(t, err, codes.InvalidArgument)
}

func TestListSnapshotsPagesAndFilters(t *testing.T) {
	td := startDriver(t, Config{})
	a := mustCreate(t, td, createReq("pvc-a", gib))
	b := mustCreate(t, td, createReq("pvc-b", gib))
	var ids []string
	for i, src := range []string{a.GetVolumeId(), b.GetVolumeId(), a.GetVolumeId()} {
		ids = append(ids, mustSnapshot(t, td, "snap-"+string(rune('0'+i)), src).GetSnapshotId())
	}
	var seen []string
	token := ""
	for {
		resp, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{MaxEntries: 2, StartingToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range resp.GetEntries() {
			seen = append(seen, e.GetSnapshot().GetSnapshotId())
		}
		if token = resp.GetNextToken(); token == "" {
			break
		}
	}
	if len(seen) != 3 || seen[0] != ids[0] || seen[2] != ids[2] {
		t.Fatalf("paged %v, want %v", seen, ids)
	}
	resp, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{SourceVolumeId: a.GetVolumeId()})
	if err != nil || len(resp.GetEntries()) != 2 {
		t.Fatalf("snapshots of %s: %v, %v; want 2", a.GetVolumeId(), resp.GetEntries(), err)
	}
	resp, err = td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{SnapshotId: ids[1]})
	if err != nil || len(resp.GetEntries()) != 1 {
		t.Fatalf("snapshot %s: %v, %v; want it alone", ids[1], resp.GetEntries(), err)
	}
	_, err = td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{StartingToken: "nonsense"})
	wantCode(t, err, codes.Aborted)
}

func TestSnapshotsSurviveARestart(t *testing.T) {
	stateFile := filepath.Join(shortTempDir(t), "state.json")
	td := startDriver(t, Config{StateFile: stateFile})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	if err := td.stop(); err != nil {
		t.Fatal(err)
	}
	again := startDriver(t, Config{StateFile: stateFile})
	if snaps := again.Snapshots(); len(snaps) != 1 || snaps[0].ID != snap.GetSnapshotId() {
		t.Fatalf("after a restart: snapshots %+v, want %s", snaps, snap.GetSnapshotId())
	}
	read, err := ReadSnapshots(stateFile)
	if err != nil || len(read) != 1 {
		t.Fatalf("ReadSnapshots: %v, %v", read, err)
	}
}

func TestStateFileFromBeforeSnapshotsLoads(t *testing.T) {
	stateFile := filepath.Join(shortTempDir(t), "state.json")
	old := `{"version": 1, "nextSeq": 2, "volumes": [{"name": "pvc-1", "id": "mock-1", "capacityBytes": 1073741824, "accessType": "mount", "seq": 1}], "publications": [], "deletions": []}`
	if err := os.WriteFile(stateFile, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	td := startDriver(t, Config{StateFile: stateFile})
	if len(td.Volumes()) != 1 || len(td.Snapshots()) != 0 {
		t.Fatalf("volumes %+v, snapshots %+v; want the one volume and no snapshot", td.Volumes(), td.Snapshots())
	}
	mustSnapshot(t, td, "snap-1", "mock-1")
}

func TestInjectedFailuresHitSnapshots(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{FailureRate: 1, FailureCode: codes.Internal}})
	_, err := td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: "any"})
	wantCode(t, err, codes.Internal)
}
