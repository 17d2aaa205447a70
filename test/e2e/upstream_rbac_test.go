//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Upstream external-provisioner's RBAC, kept as test data: a vendor who
// swaps only the image keeps these rules.
const (
	upstreamRBACv510 = "test/e2e/testdata/rbac-upstream-v5.1.0.yaml"
	upstreamRBACv630 = "test/e2e/testdata/rbac-upstream-v6.3.0.yaml"
)

// Under exactly upstream's ClusterRole and Role, of the oldest and the
// newest release whose command lines this sidecar takes, every default
// behaviour works: leader election, topology, provisioning with its
// protection finalizer, a clone with its source's finalizer, deletion.
// Nothing is refused (startStack's cleanup checks the audit log for 403s)
// and every request is one those rules grant. The chaos test runs under
// upstream v5.1.0's rules too.
func TestUpstreamRBACIsEnough(t *testing.T) {
	for _, manifest := range []string{upstreamRBACv510, upstreamRBACv630} {
		t.Run(filepath.Base(manifest), func(t *testing.T) {
			ctx, s := startStack(t, framework.StackOptions{
				Driver: framework.DriverOptions{Topology: true, NodeID: "node-1"},
				Sidecar: framework.SidecarOptions{
					LeaderElection: &framework.LeaderElectionOptions{},
					RBACManifest:   manifest,
				},
			})
			runRBACWorkload(ctx, t, s, withoutProvisionerSecrets)
			requireWithinGrants(t, s)
		})
	}
	// Upstream's rbac.yaml says the volumeattachments rule is needed only
	// by drivers with PUBLISH_UNPUBLISH_VOLUME, and driver charts drop it:
	// the mock driver has no such capability, so nothing here reads them.
	t.Run("rbac-upstream-v6.3.0-without-volumeattachments.yaml", func(t *testing.T) {
		manifest := withoutRule(t, upstreamRBACv630, volumeAttachmentsRule, "rbac-upstream-v6.3.0-without-volumeattachments.yaml")
		ctx, s := startStack(t, framework.StackOptions{
			Driver: framework.DriverOptions{Topology: true, NodeID: "node-1"},
			Sidecar: framework.SidecarOptions{
				LeaderElection: &framework.LeaderElectionOptions{},
				RBACManifest:   manifest,
			},
		})
		runRBACWorkload(ctx, t, s, withoutProvisionerSecrets)
		requireWithinGrants(t, s)
	})
}

const volumeAttachmentsRule = `  - apiGroups: ["storage.k8s.io"]
    resources: ["volumeattachments"]
    verbs: ["get", "list", "watch"]
`

// withoutRule writes a copy of the manifest without the rule, which must be
// in it, and returns its path.
func withoutRule(t *testing.T, manifest, rule, name string) string {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, manifest))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), rule) {
		t.Fatalf("%s has no rule %q to take away", manifest, rule)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), rule, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// With a ClusterRole that lacks update on claims (upstream v5.1.0's, less
// that verb), no CreateVolume is made for a claim whose provisioning-
// protection finalizer cannot be written, and the claim's event says which
// rule is missing.
func TestRefusedFinalizerWriteNamesTheMissingRule(t *testing.T) {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, upstreamRBACv510))
	if err != nil {
		t.Fatal(err)
	}
	const claimRule = "resources: [\"persistentvolumeclaims\"]\n    verbs: [\"get\", \"list\", \"watch\", \"update\"]"
	if !strings.Contains(string(data), claimRule) {
		t.Fatalf("%s has no rule %q to take update from", upstreamRBACv510, claimRule)
	}
	manifest := filepath.Join(t.TempDir(), "rbac-without-claim-update.yaml")
	narrowed := strings.Replace(string(data), claimRule, strings.Replace(claimRule, `, "update"`, "", 1), 1)
	if err := os.WriteFile(manifest, []byte(narrowed), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, s := startStackChecking(t, framework.StackOptions{
		Sidecar: framework.SidecarOptions{RBACManifest: manifest},
	}, false)
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "refused", "mock")
	ev := waitForClaimEvent(ctx, t, s, "default", "refused", corev1.EventTypeWarning, "ProvisioningFailed")
	if !strings.Contains(ev.Message, "must allow update on PersistentVolumeClaim") {
		t.Errorf("event %q does not name the missing rule", ev.Message)
	}
	if vols := driverVolumes(t, s); len(vols) != 0 {
		t.Errorf("%d volume(s) created without the finalizer on the claim", len(vols))
	}
}
