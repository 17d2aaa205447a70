//go:build e2e

package e2e

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A plain rollback with every opt-in on, and the careful check around it.
//
// With a kept volume in the bin, a claim the driver refused for good and a
// claim whose CreateVolume is running, --prepare-rollback=report names each
// of them and the class whose parameters read the claim. The sidecar is
// then stopped as an image rollback stops it: the hand-off removes every
// claim condition and the finalizer of the refused claim, and the claim in
// flight keeps its finalizer with a ProvisioningProtectionKept event. The
// stand-in for upstream provisions that claim; every claim can be deleted,
// the one that kept the finalizer once --prepare-rollback=clear has
// released it.
func TestAPlainRollbackLeavesNoClaimStuckAndTheCheckNamesWhatUpstreamWouldMishandle(t *testing.T) {
	const createDelay = 12 * time.Second
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{CreateDelay: createDelay, Verbosity: framework.DriverRequestVerbosity},
		Sidecar: framework.SidecarOptions{
			ExtraRBACManifests: []string{framework.ClaimConditionsRBACManifest},
			ExtraArgs: []string{
				claimConditionsGate, "--volume-retention=1h", "--claim-parameter-templates",
				"--volume-name-template={{.Namespace}}-{{.Name}}-{{.UIDShort}}",
				// The refused claim's hold outlasts the test: no retry of it
				// runs when the sidecar stops.
				"--retry-interval-max=5m",
			},
		},
	})
	createStorageClass(ctx, t, s, "mock")
	createStorageClass(ctx, t, s, "mock-badpool", withParameters(map[string]string{framework.PoolParameter: "nope"}))
	createStorageClass(ctx, t, s, "tagged", withParameters(map[string]string{"team": "${pvc.labels['team']}"}))

	kept := provisionAndRetain(ctx, t, s, "default", "kept", "mock")
	createClaim(ctx, t, s, "default", "refused", "mock-badpool")
	waitForClaimCondition(ctx, t, s, "refused", reasonInfeasibleHeld)
	createClaim(ctx, t, s, "default", "slow", "mock")
	waitForClaimCondition(ctx, t, s, "slow", reasonProvisioning)

	report, code := prepareRollback(t, s, "report")
	if code != 1 {
		t.Errorf("--prepare-rollback=report exited %d; want 1, something needs the operator", code)
	}
	for _, want := range [][]string{
		{"default/slow", "provisioning-protection", "needs you"},
		{"default/slow", "condition Provisioning"},
		{"default/refused", "condition Provisioning"},
		{kept.pv.Name, "kept"},
		{"tagged", "needs you"},
	} {
		if !reportHasRow(report, want...) {
			t.Errorf("the report has no row with %q:\n%s", want, report)
		}
	}
	if !strings.Contains(lastLine(report), "Not ready") {
		t.Errorf("the verdict is %q; want Not ready", lastLine(report))
	}

	// The image rollback: SIGTERM, and the hand-off.
	if err := s.Sidecar().Stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"slow", "refused"} {
		if c := claimCondition(getClaim(ctx, t, s, "default", name)); c != nil {
			t.Errorf("the stopped sidecar left claim %s with %+v", name, *c)
		}
	}
	if f := getClaim(ctx, t, s, "default", "refused").Finalizers; hasString(f, finalizerProvisioningProtection) {
		t.Errorf("the refused claim keeps %v: nothing was made for it", f)
	}
	if f := getClaim(ctx, t, s, "default", "slow").Finalizers; !hasString(f, finalizerProvisioningProtection) {
		t.Errorf("the claim in flight lost the finalizer (%v): its volume may exist", f)
	}
	waitForClaimEvent(ctx, t, s, "default", "slow", corev1.EventTypeNormal, "ProvisioningProtectionKept")

	// The stand-in for upstream takes over.
	if _, err := s.StartSidecar(ctx, framework.SidecarOptions{Binary: upstreamLikeBinary(t)}); err != nil {
		t.Fatal(err)
	}
	waitForClaimBound(ctx, t, s, "default", "slow")
	deleteClaim(ctx, t, s, "default", "refused")
	waitForClaimGone(ctx, t, s, "default", "refused")
	if c := claimCondition(getClaim(ctx, t, s, "default", "slow")); c != nil {
		t.Errorf("claim slow, bound by the stand-in, says %+v", *c)
	}

	report, _ = prepareRollback(t, s, "clear")
	if !reportHasRow(report, "default/slow", "provisioning-protection", "cleared") {
		t.Errorf("--prepare-rollback=clear did not release the Bound claim:\n%s", report)
	}
	deleteClaim(ctx, t, s, "default", "slow")
	waitForClaimGone(ctx, t, s, "default", "slow")
	expectVolumeData(t, s, kept)
}

const finalizerProvisioningProtection = "provisioner.storage.kubernetes.io/provisioning-protection"

// prepareRollback runs the sidecar binary's careful-rollback check in mode
// against the stack, as the cluster's admin, and returns its output and
// exit code.
func prepareRollback(t *testing.T, s *framework.Stack, mode string) (string, int) {
	t.Helper()
	binDir, err := framework.DefaultBinDir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "csi-provisioner"),
		"--kubeconfig="+s.Cluster().Kubeconfig(), "--prepare-rollback="+mode).CombinedOutput()
	t.Logf("--prepare-rollback=%s (%v):\n%s", mode, err, out)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("--prepare-rollback=%s: %v", mode, err)
	}
	return string(out), 0
}

// reportHasRow tells whether a line of the report holds every part.
func reportHasRow(report string, parts ...string) bool {
	for _, line := range strings.Split(report, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func hasString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
