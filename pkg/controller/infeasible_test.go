package controller

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/informers"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const testInfeasibleHold = time.Minute

// infeasibleEnv is a provisioner on a fake clock whose driver refuses every
// CreateVolume as infeasible, with a class lister the test can change.
type infeasibleEnv struct {
	*env
	clock   *clocktesting.FakeClock
	classes cache.Indexer
	claim   *v1.PersistentVolumeClaim
	class   *storagev1.StorageClass
}

func newInfeasibleEnv(t *testing.T, mutate ...func(*Options)) *infeasibleEnv {
	t.Helper()
	ie := &infeasibleEnv{
		clock: clocktesting.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)),
		claim: newClaim("db", "1Gi"),
		class: testutil.NewClass(testClass, testDriver, testutil.WithUID("class-1")),
	}
	ie.classes = testutil.Indexer(t, ie.class)
	mutate = append([]func(*Options){func(o *Options) {
		o.Clock = ie.clock
		o.RetryIntervalMax = testInfeasibleHold
		o.ClassLister = storagelisters.NewStorageClassLister(ie.classes)
	}}, mutate...)
	ie.env = newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{ie.claim}}, mutate...)
	ie.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(codes.InvalidArgument, `unknown pool "gold"`)
	}
	return ie
}

// requeues records the claims handed back to the library through
// the library adapter's ClaimsInformer, as the library's own handler would get them.
type requeues struct {
	mu     sync.Mutex
	claims []string
}

func (r *requeues) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.claims...)
}

func watchRequeues(t *testing.T, e *env) *requeues {
	t.Helper()
	r := &requeues{}
	// Never started: only its handler registration is used.
	informer := informers.NewSharedInformerFactory(e.client, 0).Core().V1().PersistentVolumeClaims().Informer()
	_, err := e.prov.Library().ClaimsInformer(informer).AddEventHandlerWithResyncPeriod(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.claims = append(r.claims, obj.(*v1.PersistentVolumeClaim).Name)
		},
	}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestInfeasibleCreateVolumeIsReportedOnceAsUpstream(t *testing.T) {
	e := newInfeasibleEnv(t)
	_, state, err := e.provision(t, e.claim, e.class, nil)
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || state != controller.ProvisioningFinished {
		t.Fatalf("state %s, err %v; want ProvisioningFinished and an IgnoredError, so that the library neither posts its own event nor retries", state, err)
	}
	want := `Warning ProvisioningFailed Volume provisioning failed with infeasible error. Retries will be delayed. rpc error: code = InvalidArgument desc = unknown pool "gold"`
	if got := e.events.Drain(); len(got) != 1 || got[0] != want {
		t.Fatalf("events %q, want exactly %q", got, want)
	}
	if n := len(e.csi.creates); n != 1 {
		t.Fatalf("%d CreateVolume calls, want 1", n)
	}
	// The answer is final: claim protection may let the claim go.
	if got := e.opts.Calls.(*provisionstate.Tracker).State(e.claim.UID); got != provisionstate.Final {
		t.Fatalf("in-flight tracker says %s, want Final", got)
	}
}

func TestInfeasibleClaimIsHeldUntilRetryIntervalMax(t *testing.T) {
	e := newInfeasibleEnv(t)
	requeued := watchRequeues(t, e.env)
	ctx := context.Background()
	if !e.prov.ShouldProvision(ctx, e.claim) {
		t.Fatal("fixture: a new claim must be provisioned")
	}
	if _, _, err := e.provision(t, e.claim, e.class, nil); err == nil {
		t.Fatal("provisioning succeeded against a driver that refuses it")
	}
	if e.prov.ShouldProvision(ctx, e.claim) {
		t.Fatal("the claim is offered again right after an infeasible error")
	}
	e.clock.Step(testInfeasibleHold - time.Second)
	if e.prov.ShouldProvision(ctx, e.claim) || len(requeued.names()) != 0 {
		t.Fatalf("the hold ended early: requeued %v", requeued.names())
	}
	// The fake clock runs the hold's timer within Step.
	e.clock.Step(time.Second)
	if got := requeued.names(); len(got) != 1 || got[0] != e.claim.Name {
		t.Fatalf("handed back to the library %v, want [%s] once the hold ended", got, e.claim.Name)
	}
	if !e.prov.ShouldProvision(ctx, e.claim) {
		t.Fatal("the claim is still held after --retry-interval-max")
	}
	if n := e.prov.infeasible.len(); n != 0 {
		t.Fatalf("%d holds kept after the hold ended", n)
	}
}

func TestInfeasibleHoldEndsAtOnceWhenStorageClassIsRecreated(t *testing.T) {
	e := newInfeasibleEnv(t)
	requeued := watchRequeues(t, e.env)
	ctx := context.Background()
	if _, _, err := e.provision(t, e.claim, e.class, nil); err == nil {
		t.Fatal("provisioning succeeded against a driver that refuses it")
	}
	// An update of the same class keeps the hold.
	e.prov.OnClassChange(e.class)
	if e.prov.ShouldProvision(ctx, e.claim) || len(requeued.names()) != 0 {
		t.Fatalf("the hold ended without a new class: requeued %v", requeued.names())
	}

	recreated := e.class.DeepCopy()
	recreated.UID = "class-2"
	recreated.Parameters = map[string]string{"pool": "silver"}
	if err := e.classes.Update(recreated); err != nil {
		t.Fatal(err)
	}
	e.prov.OnClassChange(recreated)
	if got := requeued.names(); len(got) != 1 || got[0] != e.claim.Name {
		t.Fatalf("handed back to the library %v, want [%s] at once", got, e.claim.Name)
	}
	if !e.prov.ShouldProvision(ctx, e.claim) {
		t.Fatal("the claim is still held after its StorageClass was recreated")
	}
}

func TestInfeasibleHoldEndsWhenTheClaimComesBackWithARecreatedClass(t *testing.T) {
	e := newInfeasibleEnv(t)
	ctx := context.Background()
	if _, _, err := e.provision(t, e.claim, e.class, nil); err == nil {
		t.Fatal("provisioning succeeded against a driver that refuses it")
	}
	// No class event seen (a resync or a claim update brings the claim).
	recreated := e.class.DeepCopy()
	recreated.UID = "class-2"
	if err := e.classes.Update(recreated); err != nil {
		t.Fatal(err)
	}
	if !e.prov.ShouldProvision(ctx, e.claim) {
		t.Fatal("the claim is still held after its StorageClass was recreated")
	}
}

func TestNonInfeasibleFinalErrorIsNotHeld(t *testing.T) {
	e := newInfeasibleEnv(t)
	e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(codes.OutOfRange, "too big")
	}
	_, state, err := e.provision(t, e.claim, e.class, nil)
	var ignored *controller.IgnoredError
	if err == nil || errors.As(err, &ignored) || state != controller.ProvisioningFinished {
		t.Fatalf("state %s, err %v; want the driver's error for the library to report and retry", state, err)
	}
	if events := e.events.Drain(); strings.Contains(strings.Join(events, "\n"), "infeasible") {
		t.Fatalf("events %q for an error that is not infeasible", events)
	}
	if !e.prov.ShouldProvision(context.Background(), e.claim) {
		t.Fatal("a claim is held after an error that is not infeasible")
	}
}
