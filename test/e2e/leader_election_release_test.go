//go:build e2e

package e2e

import (
	"maps"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// With upstream v6's ReleaseLeaderElectionOnExit, a leader asked to stop
// (SIGTERM, as the kubelet does on a rollout) gives its Lease up once its
// controllers have stopped, so the standby takes over at its next try rather
// than after the lease duration. The Lease carries --leader-election-labels.
func TestLeaderElectionReleaseOnExitAndLabels(t *testing.T) {
	// A lease duration far above the retry period: a takeover within half
	// of it can only come from a released Lease.
	le := framework.LeaderElectionOptions{LeaseDuration: 40 * time.Second, RenewDeadline: 30 * time.Second, RetryPeriod: time.Second}
	ctx, s := startStack(t, framework.StackOptions{
		Sidecar: framework.SidecarOptions{
			Replicas:       2,
			LeaderElection: &le,
			ExtraArgs: []string{
				"--feature-gates=ReleaseLeaderElectionOnExit=true",
				"--leader-election-labels=app.kubernetes.io/part-of:csi-mock,tier:storage",
			},
		},
	})
	identities, leader, standby := electedLeaderAndStandby(ctx, t, s)

	leases, err := s.Client().CoordinationV1().Leases(s.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil || len(leases.Items) != 1 {
		t.Fatalf("want the one Lease, got %v (%v)", leases, err)
	}
	wantLabels := map[string]string{"app.kubernetes.io/part-of": "csi-mock", "tier": "storage"}
	if got := leases.Items[0].Labels; !maps.Equal(got, wantLabels) {
		t.Errorf("Lease labels %v, want %v", got, wantLabels)
	}

	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "before", "mock")
	waitForClaimBound(ctx, t, s, "default", "before")

	stopped := time.Now()
	// SIGTERM, and wait for the exit: the controllers stop, then the Lease
	// is given up, then the process exits (with status 1, as upstream's).
	if err := leader.Stop(); err != nil {
		t.Fatal(err)
	}
	if holder := waitForLeaseHolder(ctx, t, s, identities, leader.Name()); holder != standby {
		t.Fatalf("the Lease went to %s, want the standby %s", holder.Name(), standby.Name())
	}
	took := time.Since(stopped)
	t.Logf("the standby took over %s after SIGTERM (lease duration %s)", took.Round(time.Millisecond), le.LeaseDuration)
	if took > le.LeaseDuration/2 {
		t.Errorf("takeover took %s: the Lease was not released (lease duration %s)", took.Round(time.Millisecond), le.LeaseDuration)
	}
	if !logHas(t, leader, "Stopped leading") {
		t.Errorf("the old leader did not log giving the Lease up")
	}

	createClaim(ctx, t, s, "default", "after", "mock")
	_, pv := waitForClaimBound(ctx, t, s, "default", "after")
	if !logHas(t, standby, logVolumeCreated, pv.Name) {
		t.Errorf("the new leader %s did not log creating %s", standby.Name(), pv.Name)
	}
}
