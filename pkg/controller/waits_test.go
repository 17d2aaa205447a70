package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/utils/clock"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

func TestFailuresThatAreWaits(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"driver Unavailable", status.Error(codes.Unavailable, "driver busy"), true},
		{"driver DeadlineExceeded", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), true},
		{"driver Aborted", status.Error(codes.Aborted, "an operation for this volume is running"), true},
		{"driver Canceled", status.Error(codes.Canceled, "context canceled"), true},
		{"volume still attached", &stillAttachedError{pv: "pvc-1", node: "node-1"}, true},
		{"CreateVolume of the claim running", &callRunningError{claim: "apps/db"}, true},
		{"driver InvalidArgument", status.Error(codes.InvalidArgument, "bad parameter"), false},
		{"driver Internal", status.Error(codes.Internal, "backend on fire"), false},
		{"driver ResourceExhausted", status.Error(codes.ResourceExhausted, "no space"), false},
		{"driver Unavailable wrapped with more to say", fmt.Errorf("created volume capacity 1 less than requested capacity 2. Cleanup of volume pvc-1 failed, volume is orphaned: %w",
			status.Error(codes.Unavailable, "driver busy")), false},
		{"missing secret", errors.New(`error getting secret db-creds in namespace apps: secrets "db-creds" not found`), false},
		{"ignored", &controller.IgnoredError{Reason: "volume of driver other"}, false},
		{"none", nil, false},
	}
	for _, tc := range cases {
		if got := isWait(tc.err); got != tc.want {
			t.Errorf("%s: isWait(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// The texts are upstream's: alerts match them.
func TestWaitErrorsKeepUpstreamsText(t *testing.T) {
	if got, want := (&stillAttachedError{pv: "pvc-1", node: "node-1"}).Error(), "persistentvolume pvc-1 is still attached to node node-1"; got != want {
		t.Errorf("attached: %q, want %q", got, want)
	}
	if got, want := (&callRunningError{claim: "apps/db"}).Error(), "another CreateVolume for claim apps/db is running"; got != want {
		t.Errorf("running: %q, want %q", got, want)
	}
}

func TestOnlyWaitsAreNoted(t *testing.T) {
	ctx := context.Background()
	wait, final := status.Error(codes.Unavailable, "noted test: busy"), status.Error(codes.InvalidArgument, "noted test: bad")
	p := &Provisioner{waits: newWaitNotes(clock.RealClock{}, noteKept, notesKept)}
	p.noteWait(ctx, "claim-noted-1", reasonProvisioningFailed, wait)
	p.noteWait(ctx, "claim-noted-1", reasonProvisioningFailed, final)
	if !p.waits.isNoted("claim-noted-1", reasonProvisioningFailed, wait.Error()) {
		t.Error("an Unavailable CreateVolume is not noted as a wait")
	}
	if p.waits.isNoted("claim-noted-1", reasonProvisioningFailed, final.Error()) {
		t.Error("an InvalidArgument CreateVolume is noted as a wait")
	}
}
