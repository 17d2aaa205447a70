//go:build e2e

package e2e

import (
	"path/filepath"
	"testing"

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
}
