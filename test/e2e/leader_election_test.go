//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Log lines of the sidecar that tell what a replica does. A standby replica
// must not start its controllers at all, so the absence of the first line
// shows it did not provision.
const (
	logControllersStarted = `"Starting provisioner controller"`
	logVolumeCreated      = `"Volume created"`
)

var (
	// notInLeaseName matches what the Lease cannot hold of an identity.
	notInLeaseName = regexp.MustCompile(`[^a-zA-Z0-9-]`)
)

// leaseIdentity is the identity as the Lease records it: the leader-election
// library (csi-lib-utils) replaces every character but letters, digits and
// '-' with '-', as upstream's replicas do too.
func leaseIdentity(id string) string {
	id = notInLeaseName.ReplaceAllString(id, "-")
	if strings.HasSuffix(id, "-") {
		id += "X"
	}
	return id
}

// Of two replicas with leader election exactly one provisions. When the
// leader is killed (SIGKILL: no chance to hand over), the other takes the
// Lease once it expires and provisions the next claim.
func TestLeaderElectionFailover(t *testing.T) {
	le := framework.LeaderElectionOptions{LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second}
	ctx, s := startStack(t, framework.StackOptions{
		Sidecar: framework.SidecarOptions{Replicas: 2, LeaderElection: &le},
	})
	identities, leader, standby := electedLeaderAndStandby(ctx, t, s)
	t.Logf("leader %s, standby %s", leader.Name(), standby.Name())

	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "first", "mock")
	_, first := waitForClaimBound(ctx, t, s, "default", "first")
	if !logHas(t, leader, logVolumeCreated, first.Name) {
		t.Errorf("the leader %s did not log creating %s", leader.Name(), first.Name)
	}
	if logHas(t, standby, logControllersStarted) || logHas(t, standby, logVolumeCreated) {
		t.Fatalf("the standby %s started its controllers while the other replica led", standby.Name())
	}

	killed := time.Now()
	if err := leader.Kill(); err != nil {
		t.Fatalf("kill the leader: %v", err)
	}
	// The Lease expires LeaseDuration after the standby last saw it
	// renewed, which is at most a RetryPeriod before the kill; the standby
	// then takes it at its next try, up to 2.2 RetryPeriods later (client-go
	// jitters retries by a factor of 1.2), and this test sees it at its
	// next poll.
	limit := le.LeaseDuration + 4*le.RetryPeriod
	if holder := waitForLeaseHolder(ctx, t, s, identities, leader.Name()); holder != standby {
		t.Fatalf("the Lease went to %s, want the standby %s", holder.Name(), standby.Name())
	}
	took := time.Since(killed)
	t.Logf("the standby took over %s after the leader was killed (lease duration %s)", took.Round(time.Millisecond), le.LeaseDuration)
	if took > limit {
		t.Errorf("takeover took %s, more than the lease duration plus retries (%s)", took.Round(time.Millisecond), limit)
	}

	createClaim(ctx, t, s, "default", "second", "mock")
	_, second := waitForClaimBound(ctx, t, s, "default", "second")
	if !logHas(t, standby, logVolumeCreated, second.Name) {
		t.Errorf("the new leader %s did not log creating %s", standby.Name(), second.Name)
	}
	if vols := driverVolumes(t, s); len(vols) != 2 {
		t.Errorf("driver holds %d volumes, want 2: %+v", len(vols), vols)
	}
}

// waitForIdentity returns a replica's identity in the Lease: as upstream's,
// it is the host name, which the framework sets to the replica's name.
func waitForIdentity(_ context.Context, t *testing.T, _ *framework.Stack, p *framework.Process) string {
	t.Helper()
	if !framework.OwnHostnames() {
		t.Skip("replicas on one machine share its host name, and so their Lease identity, unless the framework can give each its own (root only)")
	}
	return leaseIdentity(p.Name())
}

// electedLeaderAndStandby waits for both replicas to log their identities
// and one to hold the Lease; identities maps each identity to its replica.
func electedLeaderAndStandby(ctx context.Context, t *testing.T, s *framework.Stack) (identities map[string]*framework.Process, leader, standby *framework.Process) {
	t.Helper()
	replicas := s.Sidecars()
	identities = map[string]*framework.Process{}
	for _, p := range replicas {
		identities[waitForIdentity(ctx, t, s, p)] = p
	}
	leader = waitForLeaseHolder(ctx, t, s, identities, "")
	standby = replicas[0]
	if standby == leader {
		standby = replicas[1]
	}
	return identities, leader, standby
}

// waitForLeaseHolder waits until the sidecar's Lease in the stack's
// namespace is held by one of the replicas, other than the one named not,
// and returns that replica.
func waitForLeaseHolder(ctx context.Context, t *testing.T, s *framework.Stack, identities map[string]*framework.Process, not string) *framework.Process {
	t.Helper()
	var holder *framework.Process
	waitFor(ctx, t, s, "a replica to hold the Lease", func(ctx context.Context) (bool, error) {
		leases, err := s.Client().CoordinationV1().Leases(s.Namespace()).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		var seen []string
		for _, l := range leases.Items {
			id := leaseHolder(l)
			if p, ok := identities[id]; ok && p.Name() != not {
				holder = p
				return true, nil
			}
			seen = append(seen, l.Name+"="+id)
		}
		return false, fmt.Errorf("leases %v", seen)
	})
	return holder
}

func leaseHolder(l coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// logHas reports whether one line of the process's log holds every part.
func logHas(t *testing.T, p *framework.Process, parts ...string) bool {
	t.Helper()
	return countLogLines(t, p, parts...) > 0
}
