package mockdriver

import (
	"testing"
)

// dataOf returns the DataID of the volume with id.
func dataOf(t *testing.T, td *testDriver, id string) string {
	t.Helper()
	for _, v := range td.Volumes() {
		if v.ID == id {
			if v.DataID == "" {
				t.Fatalf("volume %s has no data id", id)
			}
			return v.DataID
		}
	}
	t.Fatalf("no volume %s", id)
	return ""
}

// The DataID stands for a volume's content: it follows the data through
// clones, snapshots and restores, and nothing else shares it.
func TestDataIDFollowsTheData(t *testing.T) {
	td := startDriver(t, Config{})
	golden := mustCreate(t, td, createReq("golden", gib)).GetVolumeId()
	empty := mustCreate(t, td, createReq("empty", gib)).GetVolumeId()
	if dataOf(t, td, golden) == dataOf(t, td, empty) {
		t.Fatal("two empty volumes share a data id")
	}

	cloneReq := createReq("clone", gib)
	cloneReq.VolumeContentSource = cloneSource(golden)
	clone := mustCreate(t, td, cloneReq).GetVolumeId()
	if got, want := dataOf(t, td, clone), dataOf(t, td, golden); got != want {
		t.Fatalf("clone holds %q, its source %q", got, want)
	}

	snap := mustSnapshot(t, td, "golden-snap", golden)
	if got, want := td.Snapshots()[0].DataID, dataOf(t, td, golden); got != want {
		t.Fatalf("snapshot holds %q, its volume %q", got, want)
	}
	restored := mustCreate(t, td, restoreReq("restored", gib, snap.GetSnapshotId())).GetVolumeId()
	if got, want := dataOf(t, td, restored), dataOf(t, td, golden); got != want {
		t.Fatalf("restore holds %q, the snapshotted volume %q", got, want)
	}

	// A snapshot of a clone, restored, still holds the original data.
	cloneSnap := mustSnapshot(t, td, "clone-snap", clone)
	again := mustCreate(t, td, restoreReq("restored-from-clone", gib, cloneSnap.GetSnapshotId())).GetVolumeId()
	if got, want := dataOf(t, td, again), dataOf(t, td, golden); got != want {
		t.Fatalf("restore of the clone's snapshot holds %q, want the golden %q", got, want)
	}

	// The snapshot keeps its data after its volume is gone.
	want := dataOf(t, td, golden)
	deleteVolume(t, td, golden)
	late := mustCreate(t, td, restoreReq("restored-late", gib, snap.GetSnapshotId())).GetVolumeId()
	if got := dataOf(t, td, late); got != want {
		t.Fatalf("restore after the source was deleted holds %q, want %q", got, want)
	}
}
