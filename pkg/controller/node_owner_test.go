package controller

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

// immediateEnv is a node deployment with an unowned claim of an Immediate
// class in cache and API.
func immediateEnv(t *testing.T, class *storagev1.StorageClass, mutate ...func(*Options)) (*nodeEnv, *v1.PersistentVolumeClaim) {
	t.Helper()
	claim := claimOn("")
	e := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{class}}, mutate...)
	return e, claim
}

// shouldProvisionAsync runs ShouldProvision on a goroutine of its own.
func shouldProvisionAsync(ctx context.Context, e *nodeEnv, claim *v1.PersistentVolumeClaim) <-chan bool {
	result := make(chan bool, 1)
	go func() { result <- e.prov.ShouldProvision(ctx, claim) }()
	return result
}

func await(t *testing.T, result <-chan bool) bool {
	t.Helper()
	select {
	case r := <-result:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("ShouldProvision did not return")
		return false
	}
}

// waitingForTurn waits until the provisioner counted an attempt on the
// claim, i.e. it is waiting before writing it.
func waitingForTurn(t *testing.T, e *nodeEnv, claim *v1.PersistentVolumeClaim) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, "an attempt to take the claim", func() bool {
		return e.prov.node.backoff.limiter.NumRequeues(claim.UID) > 0
	})
}

func TestNodeDeploymentTakesImmediateClaimAfterTheDelay(t *testing.T) {
	e, claim := immediateEnv(t, classWith(storagev1.VolumeBindingImmediate), func(o *Options) { o.NodeDeployment.BaseDelay = 30 * time.Millisecond })
	start := time.Now()
	if e.prov.ShouldProvision(context.Background(), claim) {
		t.Fatal("ShouldProvision = true: the claim is provisioned once it comes back with the node selected")
	}
	if waited := time.Since(start); waited < 30*time.Millisecond {
		t.Fatalf("took the claim after %s, before the delay", waited)
	}
	updates := e.claimUpdates()
	if len(updates) != 1 || updates[0].Annotations[annSelectedNode] != ownNode {
		t.Fatalf("claim updates %v, want one selecting %s", updates, ownNode)
	}
	if got := e.apiClaim(t, "db").Annotations[annSelectedNode]; got != ownNode {
		t.Fatalf("selected node in the API is %q", got)
	}
	if n := e.prov.node.backoff.limiter.NumRequeues(claim.UID); n != 0 {
		t.Fatalf("back-off remembers %d attempts after success", n)
	}
	requests := e.capacity.capacityRequests()
	if len(requests) != 1 {
		t.Fatalf("%d GetCapacity calls", len(requests))
	}
	req := requests[0]
	if got := req.AccessibleTopology.GetSegments(); got[nodeKey] != ownNode || len(got) != 1 {
		t.Fatalf("GetCapacity topology %v, want this node's", got)
	}
	if req.Parameters["tier"] != "gold" || len(req.VolumeCapabilities) != 1 {
		t.Fatalf("GetCapacity parameters %v, capabilities %v: not what CreateVolume gets", req.Parameters, req.VolumeCapabilities)
	}

	// The updated claim comes back through the informer.
	if err := e.claims.Update(updates[0]); err != nil {
		t.Fatal(err)
	}
	if !e.prov.ShouldProvision(context.Background(), updates[0]) {
		t.Fatal("ShouldProvision = false for the claim this node took")
	}
}

func TestNodeDeploymentGivesUpWhenAnotherNodeIsSelectedMeanwhile(t *testing.T) {
	e, claim := immediateEnv(t, classWith(storagev1.VolumeBindingImmediate), func(o *Options) {
		o.NodeDeployment.BaseDelay, o.NodeDeployment.MaxDelay = 10*time.Second, 10*time.Second
	})
	result := shouldProvisionAsync(context.Background(), e, claim)
	waitingForTurn(t, e, claim)
	taken := claimOn(otherNode)
	taken.ResourceVersion = "2"
	if err := e.claims.Update(taken); err != nil {
		t.Fatal(err)
	}
	if await(t, result) {
		t.Fatal("ShouldProvision = true for a claim another node took")
	}
	if n := len(e.claimUpdates()); n != 0 {
		t.Fatalf("%d claim updates after another node took the claim", n)
	}
	if n := len(e.capacity.capacityRequests()); n != 0 {
		t.Fatalf("%d GetCapacity calls for a claim another node took", n)
	}
	if n := e.prov.node.backoff.limiter.NumRequeues(claim.UID); n != 0 {
		t.Fatalf("back-off remembers %d attempts", n)
	}
}

func TestNodeDeploymentStopsWaitingWhenItsContextEnds(t *testing.T) {
	e, claim := immediateEnv(t, classWith(storagev1.VolumeBindingImmediate), func(o *Options) {
		o.NodeDeployment.BaseDelay, o.NodeDeployment.MaxDelay = 10*time.Second, 10*time.Second
	})
	ctx, cancel := context.WithCancel(context.Background())
	result := shouldProvisionAsync(ctx, e, claim)
	waitingForTurn(t, e, claim)
	cancel()
	if await(t, result) || len(e.claimUpdates()) != 0 {
		t.Fatal("a cancelled wait must neither provision nor take the claim")
	}
}

func TestNodeDeploymentTakesClaimOnlyWithCapacity(t *testing.T) {
	for name, tc := range map[string]struct {
		available int64
		maximum   *wrapperspb.Int64Value
		err       error
		takes     bool
	}{
		"enough":                   {available: 2 << 30, takes: true},
		"too little":               {available: 512 << 20},
		"volumes limited in size":  {available: 2 << 30, maximum: wrapperspb.Int64(512 << 20)},
		"check fails: take anyway": {err: status.Error(codes.Internal, "broken"), takes: true},
	} {
		t.Run(name, func(t *testing.T) {
			e, claim := immediateEnv(t, classWith(storagev1.VolumeBindingImmediate))
			e.capacity.available, e.capacity.maximum, e.capacity.err = tc.available, tc.maximum, tc.err
			if e.prov.ShouldProvision(context.Background(), claim) {
				t.Fatal("ShouldProvision = true before the claim came back")
			}
			if n := len(e.capacity.capacityRequests()); n != 1 {
				t.Fatalf("%d GetCapacity calls", n)
			}
			if took := len(e.claimUpdates()) == 1; took != tc.takes {
				t.Fatalf("took the claim: %v, want %v", took, tc.takes)
			}
		})
	}
}

func TestNodeDeploymentRetriesAfterConflict(t *testing.T) {
	m := NewMetrics()
	registry := testutil.NewRegistry(m)
	e, claim := immediateEnv(t, classWith(storagev1.VolumeBindingImmediate), func(o *Options) { o.Metrics = m })
	testutil.FailNext(e.client, 1, apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumeclaims"}, "db", errors.New("changed")),
		testutil.Verb("update"), testutil.On("persistentvolumeclaims"))
	if e.prov.ShouldProvision(context.Background(), claim) {
		t.Fatal("ShouldProvision = true before the claim came back")
	}
	if n := len(e.claimUpdates()); n != 2 {
		t.Fatalf("%d claim updates, want a retry after the conflict", n)
	}
	if got := e.apiClaim(t, "db").Annotations[annSelectedNode]; got != ownNode {
		t.Fatalf("selected node %q after the retry", got)
	}
	if v := testutil.Metric(t, registry, "csi_provisioner_node_deployment_ownership_conflicts_total"); v != 1 {
		t.Fatalf("ownership conflicts = %v", v)
	}
}

func TestNodeDeploymentConflictWithAFasterNodeEndsTheAttempt(t *testing.T) {
	e, claim := immediateEnv(t, classWith(storagev1.VolumeBindingImmediate))
	e.client.PrependReactor("update", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
		// Another node wrote first; the cache learns of it.
		taken := claimOn(otherNode)
		taken.ResourceVersion = "2"
		if err := e.claims.Update(taken); err != nil {
			t.Error(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumeclaims"}, "db", errors.New("changed"))
	})
	if e.prov.ShouldProvision(context.Background(), claim) {
		t.Fatal("ShouldProvision = true for a claim another node took")
	}
	if n := len(e.claimUpdates()); n != 1 {
		t.Fatalf("%d claim updates, want the one that conflicted", n)
	}
}

func TestNodeDeploymentLeavesUnownedClaimsAlone(t *testing.T) {
	allowedOnly := func(node string) *storagev1.StorageClass {
		c := classWith(storagev1.VolumeBindingImmediate)
		c.AllowedTopologies = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: nodeKey, Values: []string{node}}}}}
		return c
	}
	otherDriver := classWith(storagev1.VolumeBindingImmediate)
	otherDriver.Provisioner = "other.csi.io"
	deleting := claimOn("")
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	// The PV controller has not handed the claim to a driver yet.
	unannotated := claimOn("")
	delete(unannotated.Annotations, driverscope.AnnStorageProvisioner)
	otherDriversClaim := claimOn("")
	otherDriversClaim.Annotations[driverscope.AnnStorageProvisioner] = "other.csi.io"
	for name, tc := range map[string]struct {
		class  *storagev1.StorageClass
		claim  *v1.PersistentVolumeClaim
		mutate func(*Options)
	}{
		"WaitForFirstConsumer":         {class: classWith(storagev1.VolumeBindingWaitForFirstConsumer)},
		"immediate binding turned off": {class: classWith(storagev1.VolumeBindingImmediate), mutate: func(o *Options) { o.NodeDeployment.ImmediateBinding = false }},
		"class allows other nodes":     {class: allowedOnly(otherNode)},
		"class of another driver":      {class: otherDriver},
		"claim being deleted":          {class: classWith(storagev1.VolumeBindingImmediate), claim: deleting},
		"claim not handed out yet":     {class: classWith(storagev1.VolumeBindingImmediate), claim: unannotated},
		"claim of another driver":      {class: classWith(storagev1.VolumeBindingImmediate), claim: otherDriversClaim},
	} {
		t.Run(name, func(t *testing.T) {
			claim := tc.claim
			if claim == nil {
				claim = claimOn("")
			}
			mutate := []func(*Options){}
			if tc.mutate != nil {
				mutate = append(mutate, tc.mutate)
			}
			e := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{tc.class}}, mutate...)
			if e.prov.ShouldProvision(context.Background(), claim) {
				t.Fatal("ShouldProvision = true for a claim without this node")
			}
			if len(e.claimUpdates()) != 0 || len(e.capacity.capacityRequests()) != 0 || e.prov.node.backoff.limiter.NumRequeues(claim.UID) != 0 {
				t.Fatal("tried to take a claim this node must leave alone")
			}
		})
	}
	t.Run("class allows this node", func(t *testing.T) {
		e, claim := immediateEnv(t, allowedOnly(ownNode))
		e.prov.ShouldProvision(context.Background(), claim)
		if len(e.claimUpdates()) != 1 {
			t.Fatal("did not take a claim whose class allows this node")
		}
	})
}

func TestNodeDeploymentProvisionTakesImmediateClaimButDoesNotProvisionYet(t *testing.T) {
	class := classWith(storagev1.VolumeBindingImmediate)
	e, claim := immediateEnv(t, class)
	_, state, err := e.provision(t, claim, class, nil)
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || state != controller.ProvisioningNoChange {
		t.Fatalf("state %s, err %v; want an IgnoredError", state, err)
	}
	if len(e.claimUpdates()) != 1 || len(e.csi.creates) != 0 {
		t.Fatalf("%d claim updates, %d CreateVolume calls; want the claim taken and nothing created yet", len(e.claimUpdates()), len(e.csi.creates))
	}
}
