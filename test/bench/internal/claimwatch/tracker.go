// Package claimwatch follows the benchmarks' claims and their PVs through
// the benchmarks' own watches and records when each step of a claim's life
// was first seen, for the provisioning and throttled benchmarks alike.
package claimwatch

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/test/bench"
)

// ClaimTimes is when the benchmark saw each step of one claim's life. Times
// are taken when the benchmark's watch delivers the change (or its own call
// returns), on the same clock as everything else on the machine; the
// objects' own timestamps have one-second resolution, too coarse here.
type ClaimTimes struct {
	CreateSent time.Time // Create call issued
	Created    time.Time // Create call returned: the claim exists
	HandedOver time.Time // the PV binder named the provisioner: the sidecar may start
	PVSeen     time.Time // its PV appeared: the sidecar's part is done
	Bound      time.Time // phase Bound: the PV binder's part is done
	Settled    time.Time // Bound and without the provisioning-protection finalizer
	DeleteSent time.Time
	PVGone     time.Time
	Gone       time.Time // the claim left the API
}

// IsBound, IsSettled, IsPVSeen, IsPVGone and IsGone tell whether a step
// was seen; they are the usual conditions of Tracker.Count.
func IsBound(c *ClaimTimes) bool   { return !c.Bound.IsZero() }
func IsSettled(c *ClaimTimes) bool { return !c.Settled.IsZero() }
func IsPVSeen(c *ClaimTimes) bool  { return !c.PVSeen.IsZero() }
func IsPVGone(c *ClaimTimes) bool  { return !c.PVGone.IsZero() }
func IsGone(c *ClaimTimes) bool    { return !c.Gone.IsZero() }

// Tracker follows the claims of one namespace and their PVs through watches
// (informers of the benchmark's own client), recording the first time each
// step is seen.
type Tracker struct {
	namespace string
	mu        sync.Mutex
	claims    map[string]*ClaimTimes // by claim name
	pvs       map[string]string      // live PV name -> claim name
}

// New returns a Tracker of the claims in namespace; Start starts it.
func New(namespace string) *Tracker {
	return &Tracker{namespace: namespace, claims: map[string]*ClaimTimes{}, pvs: map[string]string{}}
}

// Start runs the informers until ctx ends and waits for their first list.
func (t *Tracker) Start(ctx context.Context, client kubernetes.Interface) error {
	claimFactory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(t.namespace))
	pvFactory := informers.NewSharedInformerFactory(client, 0)
	claimInf := claimFactory.Core().V1().PersistentVolumeClaims().Informer()
	pvInf := pvFactory.Core().V1().PersistentVolumes().Informer()
	if _, err := claimInf.AddEventHandler(t.claimHandler()); err != nil {
		return err
	}
	if _, err := pvInf.AddEventHandler(t.pvHandler()); err != nil {
		return err
	}
	claimFactory.Start(ctx.Done())
	pvFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), claimInf.HasSynced, pvInf.HasSynced) {
		return fmt.Errorf("watches of claims and PVs did not sync: %w", context.Cause(ctx))
	}
	return nil
}

// claimHandler and pvHandler are the informers' handlers; a deleted
// object comes unwrapped from the tombstone of a delete the informer
// missed.
func (t *Tracker) claimHandler() cache.ResourceEventHandlerFuncs {
	return reconcile.Handler(t.onClaim, t.onClaimDeleted)
}

func (t *Tracker) pvHandler() cache.ResourceEventHandlerFuncs {
	return reconcile.Handler(t.onPV, t.onPVDeleted)
}

// entry returns the record of a claim, creating it. t.mu must be held.
func (t *Tracker) entry(name string) *ClaimTimes {
	c := t.claims[name]
	if c == nil {
		c = &ClaimTimes{}
		t.claims[name] = c
	}
	return c
}

func setOnce(at *time.Time, now time.Time) {
	if at.IsZero() {
		*at = now
	}
}

func (t *Tracker) onClaim(obj any) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.entry(pvc.Name)
	if _, ok := pvc.Annotations[bench.AnnStorageProvisioner]; ok {
		setOnce(&c.HandedOver, now)
	}
	if pvc.Status.Phase == corev1.ClaimBound {
		setOnce(&c.Bound, now)
		if !slices.Contains(pvc.Finalizers, provisionstate.ProvisioningProtectionFinalizer) {
			setOnce(&c.Settled, now)
		}
	}
}

func (t *Tracker) onClaimDeleted(obj any) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	setOnce(&t.entry(pvc.Name).Gone, now)
}

// boundPV is obj as a PV bound to a claim of the namespace, if it is one.
func (t *Tracker) boundPV(obj any) (*corev1.PersistentVolume, bool) {
	pv, ok := obj.(*corev1.PersistentVolume)
	return pv, ok && pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.Namespace == t.namespace
}

func (t *Tracker) onPV(obj any) {
	pv, ok := t.boundPV(obj)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pvs[pv.Name] = pv.Spec.ClaimRef.Name
	setOnce(&t.entry(pv.Spec.ClaimRef.Name).PVSeen, now)
}

func (t *Tracker) onPVDeleted(obj any) {
	pv, ok := t.boundPV(obj)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pvs, pv.Name)
	setOnce(&t.entry(pv.Spec.ClaimRef.Name).PVGone, now)
}

// MarkCreateSent, MarkCreated and MarkDeleteSent record the benchmark's own
// calls, which no watch shows.
func (t *Tracker) MarkCreateSent(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	setOnce(&t.entry(name).CreateSent, at)
}

func (t *Tracker) MarkCreated(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	setOnce(&t.entry(name).Created, at)
}

func (t *Tracker) MarkDeleteSent(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	setOnce(&t.entry(name).DeleteSent, at)
}

// Snapshot copies the records of the named claims; a claim never seen has
// a zero record.
func (t *Tracker) Snapshot(names []string) []ClaimTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ClaimTimes, len(names))
	for i, n := range names {
		if c := t.claims[n]; c != nil {
			out[i] = *c
		}
	}
	return out
}

// Count returns how many of the named claims satisfy done.
func (t *Tracker) Count(names []string, done func(*ClaimTimes) bool) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, name := range names {
		if c := t.claims[name]; c != nil && done(c) {
			n++
		}
	}
	return n
}

// LivePVs returns how many PVs of the namespace's claims exist now.
func (t *Tracker) LivePVs() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pvs)
}
