package claimconditions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// Calls tells whether a CreateVolume for a claim runs in this process, and
// when one starts or ends. A provisionstate.Tracker fits.
type Calls interface {
	State(uid types.UID) provisionstate.CallState
	Subscribe(fn func(uid types.UID))
	SubscribeBegin(fn func(uid types.UID))
}

// DriverErrors tells the driver's last refusal of a claim's CreateVolume,
// and when it changes. A provisionstate.DriverErrors fits, the one the
// provisioner records into.
type DriverErrors interface {
	Last(uid types.UID) (provisionstate.DriverError, bool)
	// Forget drops the refusal of a claim that is gone or Bound.
	Forget(uid types.UID)
	Subscribe(fn func(uid types.UID))
}

// InfeasibleHolds tells whether a claim is held back after an infeasible
// CreateVolume, and until when. The provisioner fits; a hold starts just
// before its refusal is recorded in DriverErrors, whose notice tells it.
type InfeasibleHolds interface {
	InfeasibleHold(claim *v1.PersistentVolumeClaim) (time.Time, bool)
}

// Defaults of Options.
const (
	// DefaultSettle is how long a state must last before it is written.
	// A CreateVolume of a second or two, which most are, is never
	// reported; one that takes longer is.
	DefaultSettle = 2 * time.Second
	// DefaultBoundGrace is how long the removal from a Bound claim waits
	// for claim protection to remove its finalizer first (which it does
	// at once), so that the two writes never conflict.
	DefaultBoundGrace = 10 * time.Second
)

// Options configure the controller.
type Options struct {
	// Client patches claim status; the sidecar gives it the protection
	// client, whose rate limit is separate from provisioning's.
	Client        kubernetes.Interface
	ClaimInformer coreinformers.PersistentVolumeClaimInformer
	// ClassInformer gives each claim's StorageClass: which driver
	// provisions it, and its binding mode.
	ClassInformer storageinformers.StorageClassInformer
	// DriverName is this sidecar's driver; MigratedFrom the in-tree
	// plugin it replaces, if any. Claims of other provisioners are never
	// touched.
	DriverName   string
	MigratedFrom string
	// NodeName is this sidecar's node with --node-deployment, else empty.
	// Then only the claims whose provisioning node (or selected node) is
	// this node are reported here: every node's sidecar runs this
	// controller, and one writer per claim keeps it to one write per
	// change. A claim no node is chosen for yet gets no condition.
	NodeName     string
	Calls        Calls
	DriverErrors DriverErrors
	Holds        InfeasibleHolds
	// Settle is how long a new state must last before it is written; 0
	// writes at once. The removal from a Bound claim never waits for it.
	Settle time.Duration
	// BoundGrace bounds how long the removal from a Bound claim waits
	// for its provisioning-protection finalizer to go; 0 is
	// DefaultBoundGrace.
	BoundGrace time.Duration
	// Clock defaults to the real one.
	Clock clock.PassiveClock
	// Metrics; nil keeps a private, unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is the default.
	RateLimiter workqueue.TypedRateLimiter[cache.ObjectName]
	// Processed, if set, is told of every sync (for tests).
	Processed func(key cache.ObjectName, result reconcile.Result, err error)
}

// claimUIDIndex finds a pending claim by UID when the tracker or the
// driver errors tell of it. Bound claims are not indexed: nothing this
// controller hears of by UID concerns them.
const claimUIDIndex = "claimconditions-uid"

// Controller keeps the condition of pending claims current.
type Controller struct {
	opts       Options
	client     kubernetes.Interface
	claims     corelisters.PersistentVolumeClaimLister
	claimIndex cache.Indexer
	classes    storagelisters.StorageClassLister
	synced     []cache.InformerSynced
	clock      clock.PassiveClock
	metrics    *Metrics
	settling   *settling
	loop       *reconcile.Loop[cache.ObjectName]
}

// New registers the controller's index and handlers on the informers and
// subscribes to the call tracker and the driver errors; call it before the
// informers start.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil || opts.ClaimInformer == nil || opts.ClassInformer == nil:
		return nil, errors.New("claim conditions controller needs a client and claim and class informers")
	case opts.DriverName == "":
		return nil, errors.New("claim conditions controller needs the driver name")
	case opts.Calls == nil || opts.DriverErrors == nil || opts.Holds == nil:
		return nil, errors.New("claim conditions controller needs the call tracker, the driver errors and the infeasible holds")
	case opts.Settle < 0 || opts.BoundGrace < 0:
		return nil, errors.New("claim conditions controller needs non-negative delays")
	}
	if opts.BoundGrace == 0 {
		opts.BoundGrace = DefaultBoundGrace
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
	claimInformer := opts.ClaimInformer.Informer()
	if err := claimInformer.AddIndexers(cache.Indexers{claimUIDIndex: pendingClaimUID}); err != nil {
		return nil, fmt.Errorf("claim conditions controller index: %w", err)
	}
	classInformer := opts.ClassInformer.Informer()
	c := &Controller{
		opts:       opts,
		client:     opts.Client,
		claims:     opts.ClaimInformer.Lister(),
		claimIndex: claimInformer.GetIndexer(),
		classes:    opts.ClassInformer.Lister(),
		synced:     []cache.InformerSynced{claimInformer.HasSynced, classInformer.HasSynced},
		clock:      opts.Clock,
		metrics:    m,
		settling:   newSettling(opts.Clock),
	}
	loop, err := reconcile.New(reconcile.Options[cache.ObjectName]{
		Name:        "claim-conditions",
		Sync:        c.sync,
		LogValues:   reconcile.ObjectNameLogValues("PVC"),
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	if _, err := claimInformer.AddEventHandler(reconcile.Handler(c.onClaim, c.onClaimDeleted)); err != nil {
		return nil, fmt.Errorf("claim conditions controller claim handler: %w", err)
	}
	if _, err := classInformer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{AddFunc: c.onClassAdded}); err != nil {
		return nil, fmt.Errorf("claim conditions controller class handler: %w", err)
	}
	opts.Calls.SubscribeBegin(c.onClaimUID)
	opts.Calls.Subscribe(c.onClaimUID)
	opts.DriverErrors.Subscribe(c.onClaimUID)
	return c, nil
}

// Run syncs claims with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.loop.Run(ctx, workers, c.synced...)
}

// onClaim queues a claim that is not Bound, or still carries the
// condition: the many Bound claims of a cluster cost nothing.
func (c *Controller) onClaim(obj any) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	if !boundOrLost(claim) || conditionOf(claim) != nil {
		c.loop.Add(cache.MetaObjectToName(claim))
	}
}

// onClaimDeleted forgets what is known of a deleted claim.
func (c *Controller) onClaimDeleted(obj any) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	c.settling.forget(claim.UID)
	c.opts.DriverErrors.Forget(claim.UID)
}

// onClassAdded queues the pending claims of a class created after them:
// until then they were nobody's. The informer's first list is left out;
// every claim is queued by its own then.
func (c *Controller) onClassAdded(obj any, isInInitialList bool) {
	class, ok := obj.(*storagev1.StorageClass)
	if !ok || isInInitialList {
		return
	}
	claims, err := c.claims.List(labels.Everything())
	if err != nil {
		return
	}
	for _, claim := range claims {
		if !boundOrLost(claim) && driverscope.ClaimClassName(claim) == class.Name {
			c.loop.Add(cache.MetaObjectToName(claim))
		}
	}
}

// onClaimUID queues the pending claim of a UID the tracker or the driver
// errors told of.
func (c *Controller) onClaimUID(uid types.UID) {
	objs, err := c.claimIndex.ByIndex(claimUIDIndex, string(uid))
	if err != nil {
		return
	}
	for _, obj := range objs {
		if claim, ok := obj.(*v1.PersistentVolumeClaim); ok {
			c.loop.Add(cache.MetaObjectToName(claim))
		}
	}
}

// boundOrLost tells a claim whose provisioning is over: Bound, or Lost.
func boundOrLost(claim *v1.PersistentVolumeClaim) bool {
	return claim.Status.Phase == v1.ClaimBound || claim.Status.Phase == v1.ClaimLost
}

func pendingClaimUID(obj any) ([]string, error) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok || boundOrLost(claim) {
		return nil, nil
	}
	return []string{string(claim.UID)}, nil
}
