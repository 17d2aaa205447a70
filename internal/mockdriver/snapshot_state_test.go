package mockdriver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSnapshotsSurviveRestart(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	cfg := Config{StateFile: stateFile}

	first := startDriver(t, cfg)
	vol := mustCreate(t, first, createReq("source", gib))
	snap := mustSnapshot(t, first, "snap-1", vol.GetVolumeId())
	deleteSnapshot(t, first, mustSnapshot(t, first, "gone", vol.GetVolumeId()).GetSnapshotId())
	mustCreate(t, first, restoreReq("restored", gib, snap.GetSnapshotId()))
	beforeVols := first.Volumes()
	second := restart(t, first, cfg)
	// The restarted driver answers a retry with the snapshot it cut before,
	// and numbers new snapshots after the old ones.
	if again := mustSnapshot(t, second, "snap-1", vol.GetVolumeId()); again.GetSnapshotId() != snap.GetSnapshotId() {
		t.Fatalf("retry after restart returned %s, want %s", again.GetSnapshotId(), snap.GetSnapshotId())
	}
	mustSnapshot(t, second, "newer", vol.GetVolumeId())
	snaps := second.Snapshots()
	if last := snaps[len(snaps)-1]; last.Name != "newer" || last.Seq <= beforeVols[len(beforeVols)-1].Seq {
		t.Fatalf("new snapshot not numbered after the old state: %+v", snaps)
	}
}

// A file written before snapshots existed (version 1) still loads; its
// volumes get data ids, a clone sharing its source's, and the driver
// rewrites the file in the current version.
func TestStateFileFromBeforeSnapshotsLoads(t *testing.T) {
	stateFile := writeStateFile(t, `{"version":1,"nextSeq":3,"volumes":[`+
		`{"name":"source","id":"mock-1","capacityBytes":1073741824,"accessType":"mount","seq":1},`+
		`{"name":"clone","id":"mock-2","capacityBytes":1073741824,"sourceVolumeID":"mock-1","accessType":"mount","seq":2}],`+
		`"publications":[],"deletions":[]}`)
	read, err := ReadVolumes(stateFile)
	if err != nil {
		t.Fatalf("ReadVolumes of a version 1 file: %v", err)
	}

	td := startDriver(t, Config{StateFile: stateFile})
	vols := td.Volumes()
	if len(vols) != 2 || len(td.Snapshots()) != 0 {
		t.Fatalf("volumes %+v, snapshots %+v; want the two volumes and no snapshot", vols, td.Snapshots())
	}
	if vols[0].DataID == "" || vols[1].DataID != vols[0].DataID {
		t.Fatalf("data ids %q and %q, want the clone to share its source's", vols[0].DataID, vols[1].DataID)
	}
	if !reflect.DeepEqual(read, vols) {
		t.Fatalf("reading the old file gave %+v, the driver loaded %+v", read, vols)
	}
	var written struct {
		Version int `json:"version"`
	}
	data, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &written); err != nil || written.Version != stateVersion {
		t.Fatalf("rewritten file has version %d (%v), want %d", written.Version, err, stateVersion)
	}

	snap := mustSnapshot(t, td, "snap-1", "mock-1")
	restored := mustCreate(t, td, restoreReq("restored", gib, snap.GetSnapshotId()))
	if got := dataOf(t, td, restored.GetVolumeId()); got != vols[0].DataID {
		t.Fatalf("restore of an old volume holds %q, want %q", got, vols[0].DataID)
	}
}

func TestCorruptSnapshotStateIsAnError(t *testing.T) {
	valid := `{"version":2,"nextSeq":4,"volumes":[` +
		`{"name":"a","id":"mock-1","capacityBytes":1,"accessType":"mount","dataID":"data-1","seq":1}],` +
		`"snapshots":[` +
		`{"name":"s","id":"snap-1","sourceVolumeID":"mock-1","sizeBytes":1,"dataID":"data-1","creationTime":"2026-01-01T00:00:00Z","readyToUse":true,"seq":2},` +
		`{"name":"t","id":"snap-2","sourceVolumeID":"mock-1","sizeBytes":1,"dataID":"data-1","creationTime":"2026-01-01T00:00:00Z","readyToUse":true,"seq":3}]}`
	cases := map[string]string{
		"newer version":         strings.Replace(valid, `"version":2`, `"version":3`, 1),
		"snapshots in v1":       strings.Replace(valid, `"version":2`, `"version":1`, 1),
		"volume without data":   strings.Replace(valid, `"dataID":"data-1","seq":1`, `"seq":1`, 1),
		"snapshot without data": strings.Replace(valid, `"dataID":"data-1","creationTime"`, `"creationTime"`, 1),
		"duplicate id":          strings.Replace(valid, `"snap-2"`, `"snap-1"`, 1),
		"duplicate name":        strings.Replace(valid, `"name":"t"`, `"name":"s"`, 1),
		"seq of a volume":       strings.Replace(valid, `"seq":2}`, `"seq":1}`, 1),
		"seq beyond next":       strings.Replace(valid, `"nextSeq":4`, `"nextSeq":3`, 1),
		"no source volume":      strings.Replace(valid, `"sourceVolumeID":"mock-1","sizeBytes":1,"dataID":"data-1","creationTime":"2026-01-01T00:00:00Z","readyToUse":true,"seq":3`, `"sizeBytes":1,"dataID":"data-1","creationTime":"2026-01-01T00:00:00Z","readyToUse":true,"seq":3`, 1),
		"negative size":         strings.Replace(valid, `"sizeBytes":1,"dataID":"data-1","creationTime":"2026-01-01T00:00:00Z","readyToUse":true,"seq":3`, `"sizeBytes":-1,"dataID":"data-1","creationTime":"2026-01-01T00:00:00Z","readyToUse":true,"seq":3`, 1),
	}
	testCorruptStates(t, valid, cases, func(t *testing.T, d *Driver) {
		if got := len(d.Snapshots()); got != 2 {
			t.Fatalf("%d snapshots loaded, want 2", got)
		}
	})
}
