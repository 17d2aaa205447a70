package mockdriver

import (
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func restoreReq(name string, required int64, snapshotID string) *csi.CreateVolumeRequest {
	req := createReq(name, required)
	req.VolumeContentSource = snapshotSource(snapshotID)
	return req
}

func TestRestoreFromSnapshot(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("source", gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())

	req := restoreReq("restored", gib, snap.GetSnapshotId())
	restored := mustCreate(t, td, req)
	if got := restored.GetContentSource().GetSnapshot().GetSnapshotId(); got != snap.GetSnapshotId() {
		t.Fatalf("response content source %q, want snapshot %s", got, snap.GetSnapshotId())
	}
	vols := td.Volumes()
	if len(vols) != 2 || vols[1].SourceSnapshotID != snap.GetSnapshotId() || vols[1].SourceVolumeID != "" {
		t.Fatalf("volumes %+v, want the restore recorded with its snapshot only", vols)
	}
	listed, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := listed.GetEntries()[1].GetVolume().GetContentSource().GetSnapshot().GetSnapshotId(); got != snap.GetSnapshotId() {
		t.Fatalf("ListVolumes reports content source %q, want snapshot %s", got, snap.GetSnapshotId())
	}

	t.Run("retry returns the same volume", func(t *testing.T) {
		if again := mustCreate(t, td, req); again.GetVolumeId() != restored.GetVolumeId() {
			t.Fatalf("retry made volume %s, first %s", again.GetVolumeId(), restored.GetVolumeId())
		}
	})
	t.Run("same name with another source is AlreadyExists", func(t *testing.T) {
		other := mustSnapshot(t, td, "snap-2", vol.GetVolumeId())
		for name, src := range map[string]*csi.VolumeContentSource{
			"no source":      nil,
			"other snapshot": snapshotSource(other.GetSnapshotId()),
			"clone":          cloneSource(vol.GetVolumeId()),
		} {
			t.Run(name, func(t *testing.T) {
				r := createReq("restored", gib)
				r.VolumeContentSource = src
				_, err := td.controller.CreateVolume(callCtx(t), r)
				wantCode(t, err, codes.AlreadyExists)
			})
		}
	})
	t.Run("retry after the snapshot is gone", func(t *testing.T) {
		// Deleting a snapshot a volume was restored from is allowed.
		deleteSnapshot(t, td, snap.GetSnapshotId())
		if again := mustCreate(t, td, req); again.GetVolumeId() != restored.GetVolumeId() {
			t.Fatalf("retry made volume %s, first %s", again.GetVolumeId(), restored.GetVolumeId())
		}
	})
}

func TestRestoreOfMissingSnapshot(t *testing.T) {
	td := startDriver(t, Config{})
	_, err := td.controller.CreateVolume(callCtx(t), restoreReq("restored", gib, "snap-0000000000000000"))
	wantCode(t, err, codes.NotFound)
	if got := len(td.Volumes()); got != 0 {
		t.Fatalf("failed restore created %d volumes", got)
	}
}

// A restore needs room for all of the snapshot's data.
func TestRestoreSize(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("source", 2*gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId()).GetSnapshotId()

	cases := []struct {
		name      string
		rng       *csi.CapacityRange
		wantBytes int64
		wantCode  codes.Code
	}{
		{name: "the snapshot's size", rng: &csi.CapacityRange{RequiredBytes: 2 * gib}, wantBytes: 2 * gib},
		{name: "larger", rng: &csi.CapacityRange{RequiredBytes: 3 * gib}, wantBytes: 3 * gib},
		{name: "size left to the driver", rng: nil, wantBytes: 2 * gib},
		{name: "limit alone, room enough", rng: &csi.CapacityRange{LimitBytes: 4 * gib}, wantBytes: 2 * gib},
		{name: "required below the snapshot", rng: &csi.CapacityRange{RequiredBytes: gib}, wantCode: codes.OutOfRange},
		{name: "required below, limit above", rng: &csi.CapacityRange{RequiredBytes: gib, LimitBytes: 4 * gib}, wantCode: codes.OutOfRange},
		{name: "limit below the snapshot", rng: &csi.CapacityRange{LimitBytes: gib}, wantCode: codes.OutOfRange},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := restoreReq("pvc-"+strings.ReplaceAll(tc.name, " ", "-"), 0, snap)
			req.CapacityRange = tc.rng
			resp, err := td.controller.CreateVolume(callCtx(t), req)
			wantCode(t, err, tc.wantCode)
			if err == nil && resp.GetVolume().GetCapacityBytes() != tc.wantBytes {
				t.Fatalf("got %d bytes, want %d", resp.GetVolume().GetCapacityBytes(), tc.wantBytes)
			}
		})
	}
}

// Kubernetes decides whether a restore may change the volume mode, so the
// driver restores a file system snapshot as a block volume when asked.
func TestRestoreMayChangeAccessType(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("source", gib))
	snap := mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	req := restoreReq("restored-block", gib, snap.GetSnapshotId())
	req.VolumeCapabilities = []*csi.VolumeCapability{blockCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)}
	mustCreate(t, td, req)
}
