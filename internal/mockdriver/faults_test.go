package mockdriver

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// sequenceRand returns the given values in turn, then repeats the last.
type sequenceRand struct {
	mu     sync.Mutex
	values []float64
}

func (r *sequenceRand) Float64() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.values[0]
	if len(r.values) > 1 {
		r.values = r.values[1:]
	}
	return v
}

func TestCreateAndDeleteDelay(t *testing.T) {
	const delay = 200 * time.Millisecond
	td := startDriver(t, Config{Faults: Faults{CreateDelay: delay, DeleteDelay: delay}})

	start := time.Now()
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	if took := time.Since(start); took < delay {
		t.Fatalf("CreateVolume took %v, want at least %v", took, delay)
	}
	start = time.Now()
	if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < delay {
		t.Fatalf("DeleteVolume took %v, want at least %v", took, delay)
	}
}

func TestAbandonedDelayedCallHasNoEffect(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{CreateDelay: time.Hour}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := td.controller.CreateVolume(ctx, createReq("pvc-1", gib))
	wantCode(t, err, codes.DeadlineExceeded)
	if got := len(td.Volumes()); got != 0 {
		t.Fatalf("abandoned call created %d volumes", got)
	}
}

func TestShutdownEndsDelayedCalls(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{CreateDelay: time.Hour}})
	result := make(chan error, 1)
	go func() {
		_, err := td.controller.CreateVolume(context.Background(), createReq("pvc-1", gib))
		result <- err
	}()
	waitFor(t, func() bool { return td.Calls("CreateVolume") == 1 })

	if err := td.stop(); err != nil {
		t.Fatalf("Serve returned %v", err)
	}
	select {
	case err := <-result:
		wantCode(t, err, codes.Unavailable)
	case <-time.After(gracePeriod):
		t.Fatal("delayed call still running after shutdown")
	}
}

func TestInjectedFailureCode(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{FailureRate: 1, FailureCode: codes.ResourceExhausted}})
	_, err := td.controller.CreateVolume(callCtx(t), createReq("pvc-1", gib))
	wantCode(t, err, codes.ResourceExhausted)
	_, err = td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: "any"})
	wantCode(t, err, codes.ResourceExhausted)
	if got := len(td.Volumes()); got != 0 {
		t.Fatalf("failed call created %d volumes", got)
	}
	// Other calls are never failed.
	if _, err := td.identity.Probe(callCtx(t), &csi.ProbeRequest{}); err != nil {
		t.Fatalf("Probe: %v", err)
	}
}

func TestInjectedFailureDefaultsToUnavailable(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{FailureRate: 1}})
	_, err := td.controller.CreateVolume(callCtx(t), createReq("pvc-1", gib))
	wantCode(t, err, codes.Unavailable)
}

func TestFailureRateUsesInjectedRand(t *testing.T) {
	rnd := &sequenceRand{values: []float64{0.1, 0.9, 0.29, 0.3}}
	td := startDriver(t, Config{Faults: Faults{FailureRate: 0.3, FailureCode: codes.Internal, Rand: rnd}})

	for i, want := range []codes.Code{codes.Internal, codes.OK, codes.Internal, codes.OK} {
		_, err := td.controller.CreateVolume(callCtx(t), createReq("pvc-1", gib))
		if got := status.Code(err); got != want {
			t.Fatalf("call %d: got %v (%v), want %v", i+1, got, err, want)
		}
	}
}

func TestExitAfterCallsPersistsThenWithholdsReply(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	var exits atomic.Int32
	d, err := New(Config{StateFile: stateFile, Faults: Faults{
		ExitAfterCalls: 2,
		// A failure rate of 1 shows that the crashing call still does its work.
		FailureRate: 1,
		Rand:        &sequenceRand{values: []float64{0.99, 0}},
		Exit:        func() { exits.Add(1) },
	}})
	if err != nil {
		t.Fatal(err)
	}
	td := serveDriver(t, d)

	_, err = td.controller.CreateVolume(callCtx(t), createReq("pvc-1", gib))
	wantCode(t, err, codes.Unavailable) // first call: injected failure
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	resp, err := td.controller.CreateVolume(ctx, createReq("pvc-2", gib))
	wantCode(t, err, codes.DeadlineExceeded)
	if resp != nil {
		t.Fatalf("crashed call replied %v", resp)
	}
	if got := exits.Load(); got != 1 {
		t.Fatalf("exit called %d times, want 1", got)
	}

	// The operation was persisted before the crash.
	vols, err := ReadVolumes(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 1 || vols[0].Name != "pvc-2" {
		t.Fatalf("state file after crash: %+v", vols)
	}

	// A dead driver answers nothing, not even probes.
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = td.identity.Probe(ctx, &csi.ProbeRequest{})
	wantCode(t, err, codes.DeadlineExceeded)
	if err := td.stop(); err != nil {
		t.Fatalf("stopping the crashed driver: %v", err)
	}

	// A restarted driver knows the volume, so the CO's retry succeeds.
	restarted := startDriver(t, Config{StateFile: stateFile})
	vol := mustCreate(t, restarted, createReq("pvc-2", gib))
	if vol.GetVolumeId() != vols[0].ID {
		t.Fatalf("retry returned %s, want %s", vol.GetVolumeId(), vols[0].ID)
	}
}

func TestExitDuringDeleteDropsConnection(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	exited := make(chan struct{})
	d, err := New(Config{StateFile: stateFile, Faults: Faults{ExitAfterCalls: 2, Exit: func() { close(exited) }}})
	if err != nil {
		t.Fatal(err)
	}
	td := serveDriver(t, d)
	vol := mustCreate(t, td, createReq("pvc-1", gib))

	type result struct {
		resp *csi.DeleteVolumeResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := td.controller.DeleteVolume(context.Background(), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()})
		done <- result{resp, err}
	}()
	// Like a real crash, the exit takes the server down with it.
	<-exited
	if err := td.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	res := <-done
	wantCode(t, res.err, codes.Unavailable)
	if res.resp != nil {
		t.Fatalf("crashed call replied %v", res.resp)
	}
	vols, err := ReadVolumes(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 0 {
		t.Fatalf("deletion not persisted before the crash: %+v", vols)
	}
}

func TestParseCode(t *testing.T) {
	for name, want := range map[string]codes.Code{
		"Unavailable":        codes.Unavailable,
		"ResourceExhausted":  codes.ResourceExhausted,
		"RESOURCE_EXHAUSTED": codes.ResourceExhausted,
		"internal":           codes.Internal,
		" DeadlineExceeded ": codes.DeadlineExceeded,
	} {
		if got, err := ParseCode(name); err != nil || got != want {
			t.Errorf("ParseCode(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, name := range []string{"", "OK", "Unavailabl", "503"} {
		if _, err := ParseCode(name); err == nil {
			t.Errorf("ParseCode(%q) succeeded", name)
		}
	}
}

func TestNewRejectsInvalidFaults(t *testing.T) {
	for name, f := range map[string]Faults{
		"negative delay":      {CreateDelay: -time.Second},
		"rate above one":      {FailureRate: 1.5},
		"negative rate":       {FailureRate: -0.1},
		"unknown code":        {FailureCode: codes.Code(99)},
		"negative exit count": {ExitAfterCalls: -1},
	} {
		if _, err := New(Config{Faults: f}); err == nil {
			t.Errorf("New accepted %s", name)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, "the condition", cond)
}

func TestCreateOutlivingItsCallerStillCreatesTheVolume(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{CreateDelay: 300 * time.Millisecond, CreateOutlivesCaller: true}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := td.controller.CreateVolume(ctx, createReq("pvc-1", gib))
	wantCode(t, err, codes.DeadlineExceeded)
	waitFor(t, func() bool { return len(td.Volumes()) == 1 })

	// Asking again by name finds that volume instead of making another.
	resp, err := td.controller.CreateVolume(callCtx(t), createReq("pvc-1", gib))
	if err != nil {
		t.Fatal(err)
	}
	if vols := td.Volumes(); len(vols) != 1 || vols[0].ID != resp.GetVolume().GetVolumeId() {
		t.Fatalf("volumes = %v, want only %s", vols, resp.GetVolume().GetVolumeId())
	}
}

func TestCreateOfExistingVolumeSkipsTheDelay(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{CreateDelay: 300 * time.Millisecond}})
	if _, err := td.controller.CreateVolume(callCtx(t), createReq("pvc-1", gib)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := td.controller.CreateVolume(ctx, createReq("pvc-1", gib)); err != nil {
		t.Fatalf("repeated CreateVolume of an existing volume must answer at once: %v", err)
	}
}
