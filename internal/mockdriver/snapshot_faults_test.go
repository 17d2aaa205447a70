package mockdriver

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func TestSnapshotDelay(t *testing.T) {
	const delay = 200 * time.Millisecond
	td := startDriver(t, Config{Faults: Faults{SnapshotDelay: delay}})
	vol := mustCreate(t, td, createReq("pvc-1", gib))

	start := time.Now()
	mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	if took := time.Since(start); took < delay {
		t.Fatalf("CreateSnapshot took %v, want at least %v", took, delay)
	}

	// A snapshot already cut is reported at once.
	ctx, cancel := context.WithTimeout(context.Background(), delay/2)
	defer cancel()
	if _, err := td.controller.CreateSnapshot(ctx, &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: vol.GetVolumeId()}); err != nil {
		t.Fatalf("repeated CreateSnapshot of an existing snapshot must answer at once: %v", err)
	}
}

func TestAbandonedCreateSnapshotHasNoEffect(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{SnapshotDelay: time.Hour}})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := td.controller.CreateSnapshot(ctx, &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.DeadlineExceeded)
	if got := len(td.Snapshots()); got != 0 {
		t.Fatalf("abandoned call cut %d snapshots", got)
	}
}

func TestInjectedFailuresHitSnapshotCalls(t *testing.T) {
	// The first call, CreateVolume, goes through; every later one fails.
	rnd := &sequenceRand{values: []float64{0.99, 0}}
	td := startDriver(t, Config{Faults: Faults{FailureRate: 0.5, FailureCode: codes.ResourceExhausted, Rand: rnd}})
	vol := mustCreate(t, td, createReq("pvc-1", gib))

	_, err := td.controller.CreateSnapshot(callCtx(t), &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.ResourceExhausted)
	_, err = td.controller.DeleteSnapshot(callCtx(t), &csi.DeleteSnapshotRequest{SnapshotId: "snap-any"})
	wantCode(t, err, codes.ResourceExhausted)
	if got := len(td.Snapshots()); got != 0 {
		t.Fatalf("failed call cut %d snapshots", got)
	}
	// Listing is never failed, as ListVolumes is not.
	if _, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{}); err != nil {
		t.Fatalf("ListSnapshots: %v", err)
	}
}

// Snapshot calls count towards ExitAfterCalls together with volume calls:
// here CreateVolume is call 1 and CreateSnapshot call 2.
func TestExitAfterCallsCountsSnapshotCalls(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	var exits atomic.Int32
	d, err := New(Config{StateFile: stateFile, Faults: Faults{ExitAfterCalls: 2, Exit: func() { exits.Add(1) }}})
	if err != nil {
		t.Fatal(err)
	}
	td := serveDriver(t, d)
	vol := mustCreate(t, td, createReq("pvc-1", gib))

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	resp, err := td.controller.CreateSnapshot(ctx, &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.DeadlineExceeded)
	if resp != nil {
		t.Fatalf("crashed call replied %v", resp)
	}
	if got := exits.Load(); got != 1 {
		t.Fatalf("exit called %d times, want 1", got)
	}
	if err := td.stop(); err != nil {
		t.Fatalf("stopping the crashed driver: %v", err)
	}

	// The snapshot was persisted before the crash, so the retry of a
	// restarted driver finds it.
	snaps, err := ReadSnapshots(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 1 || snaps[0].Name != "snap-1" {
		t.Fatalf("state file after crash: %+v", snaps)
	}
	restarted := startDriver(t, Config{StateFile: stateFile})
	if again := mustSnapshot(t, restarted, "snap-1", vol.GetVolumeId()); again.GetSnapshotId() != snaps[0].ID {
		t.Fatalf("retry returned %s, want %s", again.GetSnapshotId(), snaps[0].ID)
	}
}

func TestNewRejectsNegativeSnapshotDelay(t *testing.T) {
	if _, err := New(Config{Faults: Faults{SnapshotDelay: -time.Second}}); err == nil {
		t.Fatal("New accepted a negative snapshot delay")
	}
}
