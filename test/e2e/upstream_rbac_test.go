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
	// Upstream's rbac.yaml says the volumeattachments rule is needed only
	// by drivers with PUBLISH_UNPUBLISH_VOLUME, and driver charts drop it:
	// the mock driver has no such capability, so nothing here reads them.
	withoutAttachments := withRuleReplaced(t, upstreamRBACv630, volumeAttachmentsRule, "", "rbac-upstream-v6.3.0-without-volumeattachments.yaml")
	for _, manifest := range []string{upstreamRBACv510, upstreamRBACv630, withoutAttachments} {
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
}

const volumeAttachmentsRule = `  - apiGroups: ["storage.k8s.io"]
    resources: ["volumeattachments"]
    verbs: ["get", "list", "watch"]
`

// withRuleReplaced writes a copy of the manifest named name with the rule,
// which must be in it, replaced, and returns its path.
func withRuleReplaced(t *testing.T, manifest, rule, replacement, name string) string {
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
		t.Fatalf("%s has no rule %q to replace", manifest, rule)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), rule, replacement, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// With a ClusterRole that lacks update on claims (upstream v5.1.0's, less
// that verb), no CreateVolume is made for a claim whose provisioning-
// protection finalizer cannot be written, and the claim's event says which
// rule is missing.
func TestRefusedFinalizerWriteNamesTheMissingRule(t *testing.T) {
	const claimRule = "resources: [\"persistentvolumeclaims\"]\n    verbs: [\"get\", \"list\", \"watch\", \"update\"]"
	manifest := withRuleReplaced(t, upstreamRBACv510, claimRule, strings.Replace(claimRule, `, "update"`, "", 1), "rbac-without-claim-update.yaml")

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
