//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A final CSI error (InvalidArgument: the driver did nothing and retrying
// the same request cannot help) is reported on the claim as a
// ProvisioningFailed warning, and nothing exists afterwards: no volume in
// the driver, no PV, and nothing holds the claim when it is deleted.
func TestFinalErrorIsReportedAndCreatesNothing(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{FailureRate: 1, FailureCode: "InvalidArgument"},
	})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "doomed", "mock")

	ev := waitForClaimEvent(ctx, t, s, "default", "doomed", corev1.EventTypeWarning, "ProvisioningFailed")
	if !strings.Contains(ev.Message, "InvalidArgument") {
		t.Errorf("ProvisioningFailed event does not name the driver's error: %q", ev.Message)
	}
	if n := driverCallsFailed(t, s, "CreateVolume", "InvalidArgument"); n == 0 {
		t.Errorf("the event appeared, but the driver logged no failed CreateVolume")
	}
	if vols := driverVolumes(t, s); len(vols) != 0 {
		t.Errorf("driver holds %d volume(s) after a final error: %+v", len(vols), vols)
	}
	if pvs := listPVs(ctx, t, s); len(pvs) != 0 {
		t.Errorf("%d PV(s) exist after a final error, e.g. %s", len(pvs), pvs[0].Name)
	}
	if pvc := getClaim(ctx, t, s, "default", "doomed"); pvc.Status.Phase != corev1.ClaimPending {
		t.Errorf("claim is %s, want Pending", pvc.Status.Phase)
	}

	deleteClaim(ctx, t, s, "default", "doomed")
	waitForClaimGone(ctx, t, s, "default", "doomed")
	if vols := driverVolumes(t, s); len(vols) != 0 {
		t.Errorf("driver holds %d volume(s) after the claim was deleted: %+v", len(vols), vols)
	}
}

// An infeasible claim (InvalidArgument) is reported as upstream v6.3.0
// reports it, and held back for --retry-interval-max after its one
// CreateVolume: the next call comes only when the hold ends (it came after
// the back-off's first second before).
func TestInfeasibleClaimIsRetriedOnlyAfterItsHold(t *testing.T) {
	const hold = 8 * time.Second
	ctx, s := startStack(t, framework.StackOptions{
		Driver:  framework.DriverOptions{FailureRate: 1, FailureCode: "InvalidArgument"},
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{"--retry-interval-max=" + hold.String()}},
	})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "infeasible", "mock")

	ev := waitForClaimEvent(ctx, t, s, "default", "infeasible", corev1.EventTypeWarning, "ProvisioningFailed")
	const upstreamText = "Volume provisioning failed with infeasible error. Retries will be delayed. rpc error: code = InvalidArgument"
	if !strings.HasPrefix(ev.Message, upstreamText) {
		t.Errorf("event %q, want upstream's %q...", ev.Message, upstreamText)
	}
	calls := func(n int) time.Time {
		waitFor(ctx, t, s, fmt.Sprintf("CreateVolume call %d", n), func(context.Context) (bool, error) {
			got := driverCallsFailed(t, s, "CreateVolume", "InvalidArgument")
			return got >= n, fmt.Errorf("%d calls", got)
		})
		return time.Now()
	}
	first := calls(1)
	second := calls(2)
	// This test sees each call up to a poll late, the first one perhaps
	// only at the second's time; a second from the back-off comes after 1s.
	if gap := second.Sub(first); gap < hold/2 {
		t.Errorf("the second CreateVolume came %s after the first, want the hold of %s", gap.Round(time.Millisecond), hold)
	}
	if n := driverCallsFailed(t, s, "CreateVolume", "InvalidArgument"); n != 2 {
		t.Errorf("%d CreateVolume calls at the end of the first hold, want 2", n)
	}
}

// A CreateVolume slower than --timeout is not a failure of the volume: the
// sidecar keeps the claim Pending and retries with the same volume name. The
// backend here keeps creating after its caller gave up (and aborts retries
// meanwhile), so the first timed-out call leaves a volume behind, and the
// next retry, answered at once for a volume that exists, gets that volume:
// in the end exactly one volume and one PV, nothing leaked or duplicated.
func TestTimedOutCreateIsRetriedIntoOneVolume(t *testing.T) {
	const sidecarTimeout = 2 * time.Second
	slow := framework.DriverOptions{CreateDelay: 2 * sidecarTimeout, CreateOutlivesCaller: true}
	ctx, s := startStack(t, framework.StackOptions{
		Driver: slow,
		Sidecar: framework.SidecarOptions{
			Timeout: sidecarTimeout,
			// Retries every few seconds rather than after minutes.
			ExtraArgs: []string{"--retry-interval-max=2s"},
		},
	})
	createStorageClass(ctx, t, s, "mock")
	pvc := createClaim(ctx, t, s, "default", "slow", "mock")

	// The sidecar reports each failed attempt on the claim, as a Normal
	// event: a call that may still run is a wait, which the retry resolves.
	// The event recorder folds repeats into one event with a count. The
	// first times out; a retry while the backend still makes the volume is
	// Aborted by the driver, as one operation per name runs at a time.
	waitFor(ctx, t, s, "a timed-out CreateVolume attempt and a retry", func(ctx context.Context) (bool, error) {
		events, err := claimEvents(ctx, s, "default", "slow")
		if err != nil {
			return false, err
		}
		timedOut, retried := 0, 0
		for _, ev := range events {
			if ev.Type != corev1.EventTypeNormal || ev.Reason != "ProvisioningFailed" {
				continue
			}
			switch {
			case strings.Contains(ev.Message, "DeadlineExceeded"):
				timedOut += max(int(ev.Count), 1)
			case strings.Contains(ev.Message, "Aborted"):
				retried += max(int(ev.Count), 1)
			}
		}
		return timedOut >= 1 && timedOut+retried >= 2, fmt.Errorf("%d timed-out and %d aborted attempt(s) reported", timedOut, retried)
	})
	if events, err := claimEvents(ctx, s, "default", "slow"); err == nil {
		for _, ev := range events {
			if ev.Type == corev1.EventTypeWarning && ev.Reason == "ProvisioningFailed" {
				t.Errorf("a wait reported as a Warning: %q", ev.Message)
			}
		}
	}
	// The backend finishes the first call CreateDelay after it started,
	// whatever became of its caller; the next attempt then finds that volume
	// by name at once instead of making another.
	orphan := waitForDriverVolumes(ctx, t, s, 1)[0]
	if want := "pvc-" + string(pvc.UID); orphan.Name != want {
		t.Fatalf("the timed-out call created %s, want %s", orphan.Name, want)
	}

	_, pv := waitForClaimBound(ctx, t, s, "default", "slow")
	if vols := driverVolumes(t, s); len(vols) != 1 {
		t.Errorf("driver holds %d volumes, want exactly 1: %+v", len(vols), vols)
	}
	if pv.Spec.CSI.VolumeHandle != orphan.ID {
		t.Errorf("PV handle %s, want the volume the timed-out call created, %s", pv.Spec.CSI.VolumeHandle, orphan.ID)
	}
	if pvs := listPVs(ctx, t, s); len(pvs) != 1 {
		t.Errorf("%d PVs exist, want exactly 1", len(pvs))
	}
}
