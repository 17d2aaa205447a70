package mockdriver

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

// restart stops first and starts a driver on its state file, after
// checking that the file holds first's volumes and snapshots as
// ReadVolumes and ReadSnapshots read it, and that the new driver holds them
// too.
func restart(t *testing.T, first *testDriver, cfg Config) *testDriver {
	t.Helper()
	vols, snaps := first.Volumes(), first.Snapshots()
	if err := first.stop(); err != nil {
		t.Fatalf("stopping the first driver: %v", err)
	}
	fileVols, err := ReadVolumes(cfg.StateFile)
	if err != nil {
		t.Fatalf("ReadVolumes: %v", err)
	}
	fileSnaps, err := ReadSnapshots(cfg.StateFile)
	if err != nil {
		t.Fatalf("ReadSnapshots: %v", err)
	}
	if !reflect.DeepEqual(fileVols, vols) || !reflect.DeepEqual(fileSnaps, snaps) {
		t.Fatalf("state file holds %+v and %+v, driver held %+v and %+v", fileVols, fileSnaps, vols, snaps)
	}
	second := startDriver(t, cfg)
	if after := second.Volumes(); !reflect.DeepEqual(after, vols) {
		t.Fatalf("volumes after restart %+v, before %+v", after, vols)
	}
	if after := second.Snapshots(); !reflect.DeepEqual(after, snaps) {
		t.Fatalf("snapshots after restart %+v, before %+v", after, snaps)
	}
	return second
}

// testCorruptStates checks that New refuses each of cases, broken copies of
// the state file valid, as corrupt and leaves the file as it is; and that
// valid loads, giving what loaded checks.
func testCorruptStates(t *testing.T, valid string, cases map[string]string, loaded func(*testing.T, *Driver)) {
	t.Helper()
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			if content == valid {
				t.Fatal("the case does not change the valid file")
			}
			stateFile := writeStateFile(t, content)
			_, err := New(Config{StateFile: stateFile})
			if err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Fatalf("New with a %s state file: err = %v, want a corruption error", name, err)
			}
			after, err := os.ReadFile(stateFile)
			if err != nil || string(after) != content {
				t.Fatalf("corrupt state file was modified (err %v)", err)
			}
		})
	}
	t.Run("valid control", func(t *testing.T) {
		d, err := New(Config{StateFile: writeStateFile(t, valid)})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		loaded(t, d)
	})
}

func writeStateFile(t *testing.T, content string) string {
	t.Helper()
	stateFile := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(stateFile, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return stateFile
}

func TestStateSurvivesRestart(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	cfg := Config{StateFile: stateFile, Topology: true, NodeID: "node-a"}

	first := startDriver(t, cfg)
	src := mustCreate(t, first, createReq("source", gib))
	req := createReq("clone", gib)
	req.Parameters = map[string]string{"type": "fast"}
	req.Secrets = map[string]string{"key": "value"}
	req.VolumeContentSource = cloneSource(src.GetVolumeId())
	clone := mustCreate(t, first, req)
	gone := mustCreate(t, first, createReq("gone", gib))
	if _, err := first.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: gone.GetVolumeId()}); err != nil {
		t.Fatal(err)
	}
	before := first.Volumes()
	second := restart(t, first, cfg)
	if len(second.Deletions()) != 1 {
		t.Fatalf("deletions not restored: %+v", second.Deletions())
	}
	// The restarted driver answers a retry with the volume it made before.
	if again := mustCreate(t, second, req); again.GetVolumeId() != clone.GetVolumeId() {
		t.Fatalf("retry after restart returned %s, want %s", again.GetVolumeId(), clone.GetVolumeId())
	}
	// New volumes sort after the old ones even though the counter restarted.
	newer := mustCreate(t, second, createReq("newer", gib))
	vols := second.Volumes()
	if vols[len(vols)-1].ID != newer.GetVolumeId() || vols[len(vols)-1].Seq <= before[len(before)-1].Seq {
		t.Fatalf("new volume not last: %+v", vols)
	}

	info, err := os.Stat(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Fatalf("state file mode %v, want 0644 so other processes can read it", info.Mode().Perm())
	}
	entries, err := os.ReadDir(filepath.Dir(stateFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("temporary files left next to the state file: %v", entries)
	}
}

func TestStateFileCreatedAtStart(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "nested", "dir", "state.json")
	if _, err := New(Config{StateFile: stateFile}); err != nil {
		t.Fatalf("New: %v", err)
	}
	vols, err := ReadVolumes(stateFile)
	if err != nil {
		t.Fatalf("ReadVolumes: %v", err)
	}
	if len(vols) != 0 {
		t.Fatalf("fresh state has %d volumes", len(vols))
	}
	if _, err := os.Stat(stateFile); err != nil {
		t.Fatalf("state file not written at start: %v", err)
	}
}

func TestCorruptStateFileIsAnError(t *testing.T) {
	valid := `{"version":1,"nextSeq":3,"volumes":[` +
		`{"name":"a","id":"mock-1","capacityBytes":1,"accessType":"mount","seq":1},` +
		`{"name":"b","id":"mock-2","capacityBytes":1,"accessType":"mount","seq":2}]}`
	cases := map[string]string{
		"empty":             "",
		"not json":          "this is not json",
		"truncated":         valid[:len(valid)-10],
		"trailing garbage":  valid + "}",
		"wrong version":     strings.Replace(valid, `"version":1`, `"version":7`, 1),
		"duplicate id":      strings.Replace(valid, `"mock-2"`, `"mock-1"`, 1),
		"duplicate name":    strings.Replace(valid, `"name":"b"`, `"name":"a"`, 1),
		"seq beyond next":   strings.Replace(valid, `"nextSeq":3`, `"nextSeq":2`, 1),
		"empty id":          strings.Replace(valid, `"mock-2"`, `""`, 1),
		"unknown access":    strings.Replace(valid, `"accessType":"mount","seq":2`, `"accessType":"tape","seq":2`, 1),
		"negative capacity": strings.Replace(valid, `"capacityBytes":1,"accessType":"mount","seq":2`, `"capacityBytes":-1,"accessType":"mount","seq":2`, 1),
	}
	testCorruptStates(t, valid, cases, func(t *testing.T, d *Driver) {
		if got := len(d.Volumes()); got != 2 {
			t.Fatalf("%d volumes loaded, want 2", got)
		}
	})
}

func TestFailedStateWriteLeavesNoChange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	stateFile := filepath.Join(dir, "state.json")
	td := startDriver(t, Config{StateFile: stateFile})
	mustCreate(t, td, createReq("kept", gib))

	// Turn the state directory into a file so the next write cannot succeed.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := td.controller.CreateVolume(callCtx(t), createReq("lost", gib))
	wantCode(t, err, codes.Internal)
	vols := td.Volumes()
	if len(vols) != 1 || vols[0].Name != "kept" {
		t.Fatalf("memory changed although persisting failed: %+v", vols)
	}
}
