//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A failure that a retry resolves by itself is a Normal event, one that
// needs a person a Warning, with upstream's reasons and messages either way
// (docs/events.md). The driver's faults change under the sidecar:
// InvalidArgument, then Unavailable, then none.
//
//   - InvalidArgument (final): the new claim's infeasible ProvisioningFailed
//     and the released PV's VolumeFailedDelete are Warnings.
//   - Unavailable (the call may still run, and is asked again): a new
//     claim's ProvisioningFailed and the same PV's VolumeFailedDelete are
//     Normal, and no Warning tells of Unavailable.
//   - none: the claim that waited binds, and the PV's volume is deleted.
func TestWaitsAreNormalAndFinalFailuresWarnings(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{"--retry-interval-max=2s"}},
	})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "released", "mock")
	_, pv := waitForClaimBound(ctx, t, s, "default", "released")

	failDriverWith(ctx, t, s, "InvalidArgument")
	createClaim(ctx, t, s, "default", "refused", "mock")
	deleteClaim(ctx, t, s, "default", "released")
	refused := waitForFailureNaming(ctx, t, s, "PersistentVolumeClaim", "default", "refused", "ProvisioningFailed", "InvalidArgument")
	deleteRefused := waitForFailureNaming(ctx, t, s, "PersistentVolume", "", pv.Name, "VolumeFailedDelete", "InvalidArgument")
	for _, ev := range []corev1.Event{refused, deleteRefused} {
		if ev.Type != corev1.EventTypeWarning {
			t.Errorf("final failure %s %q is %s, want Warning", ev.Reason, ev.Message, ev.Type)
		}
	}

	failDriverWith(ctx, t, s, "Unavailable")
	createClaim(ctx, t, s, "default", "waits", "mock")
	waited := waitForFailureNaming(ctx, t, s, "PersistentVolumeClaim", "default", "waits", "ProvisioningFailed", "Unavailable")
	deleteWaited := waitForFailureNaming(ctx, t, s, "PersistentVolume", "", pv.Name, "VolumeFailedDelete", "Unavailable")
	for _, ev := range []corev1.Event{waited, deleteWaited} {
		if ev.Type != corev1.EventTypeNormal {
			t.Errorf("wait %s %q is %s, want Normal", ev.Reason, ev.Message, ev.Type)
		}
		// Upstream's text: the driver's status alone.
		if !strings.HasPrefix(ev.Message, "rpc error: code = Unavailable desc = ") {
			t.Errorf("wait %s says %q, want the driver's status as upstream sends it", ev.Reason, ev.Message)
		}
	}

	failDriverWith(ctx, t, s, "")
	waitForClaimBound(ctx, t, s, "default", "waits")
	waitForPVGone(ctx, t, s, pv.Name)
	for _, o := range []struct{ kind, namespace, name string }{
		{"PersistentVolumeClaim", "default", "waits"}, {"PersistentVolume", "", pv.Name},
	} {
		events, err := objectEvents(ctx, s, o.kind, o.namespace, o.name)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			if ev.Type == corev1.EventTypeWarning && strings.Contains(ev.Message, "Unavailable") {
				t.Errorf("%s %s: a wait reported as a Warning: %s %q", o.kind, o.name, ev.Reason, ev.Message)
			}
		}
	}
}

// failDriverWith gives the driver a new fault: every CreateVolume and
// DeleteVolume fails with the gRPC code, or none with "". The sidecar is
// stopped meanwhile, as it exits when its driver goes away, and started
// again as the kubelet would.
func failDriverWith(ctx context.Context, t *testing.T, s *framework.Stack, code string) {
	t.Helper()
	if err := s.Sidecar().Stop(); err != nil {
		t.Fatal(err)
	}
	opts := s.DriverOptions()
	opts.FailureRate, opts.FailureCode = 0, ""
	if code != "" {
		opts.FailureRate, opts.FailureCode = 1, code
	}
	if err := s.ReplaceDriver(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if err := s.Sidecar().Restart(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitForFailureNaming waits for the event of that reason, of any type, about an
// object whose message names the gRPC code, and returns it.
func waitForFailureNaming(ctx context.Context, t *testing.T, s *framework.Stack, kind, namespace, name, reason, code string) corev1.Event {
	t.Helper()
	var found corev1.Event
	waitFor(ctx, t, s, fmt.Sprintf("a %s event naming %s on %s %s", reason, code, kind, name), func(ctx context.Context) (bool, error) {
		events, err := objectEvents(ctx, s, kind, namespace, name)
		if err != nil {
			return false, err
		}
		var seen []string
		for _, ev := range events {
			if ev.Reason == reason && strings.Contains(ev.Message, "code = "+code) {
				found = ev
				return true, nil
			}
			seen = append(seen, ev.Type+"/"+ev.Reason)
		}
		return false, fmt.Errorf("events so far: %v", seen)
	})
	return found
}
