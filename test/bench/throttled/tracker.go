package throttled

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

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// claimTimes is when the benchmark saw a claim's steps: its own create
// call returning, the claim Bound, Bound without the provisioning-protection
// finalizer (the sidecar's work on it done), its PV gone. Times are the
// benchmark's watch deliveries; the objects' own timestamps have one-second
// resolution.
type claimTimes struct {
	created time.Time
	bound   time.Time
	settled time.Time
	pvGone  time.Time
}

// tracker follows the claims of a namespace and their PVs through the
// benchmark's own watches, recording the first time each step is seen.
type tracker struct {
	namespace string
	mu        sync.Mutex
	claims    map[string]*claimTimes // by claim name
	pvs       map[string]string      // live PV name -> claim name
}

func newTracker(namespace string) *tracker {
	return &tracker{namespace: namespace, claims: map[string]*claimTimes{}, pvs: map[string]string{}}
}

// start runs the watches until ctx ends and waits for their first list.
func (t *tracker) start(ctx context.Context, client kubernetes.Interface) error {
	claimFactory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(t.namespace))
	pvFactory := informers.NewSharedInformerFactory(client, 0)
	claimInf := claimFactory.Core().V1().PersistentVolumeClaims().Informer()
	pvInf := pvFactory.Core().V1().PersistentVolumes().Informer()
	if _, err := claimInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    t.onClaim,
		UpdateFunc: func(_, obj any) { t.onClaim(obj) },
	}); err != nil {
		return err
	}
	if _, err := pvInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    t.onPV,
		UpdateFunc: func(_, obj any) { t.onPV(obj) },
		DeleteFunc: t.onPVDeleted,
	}); err != nil {
		return err
	}
	claimFactory.Start(ctx.Done())
	pvFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), claimInf.HasSynced, pvInf.HasSynced) {
		return fmt.Errorf("watches of claims and PVs did not sync: %w", context.Cause(ctx))
	}
	return nil
}

// entry returns the record of a claim, creating it. t.mu must be held.
func (t *tracker) entry(name string) *claimTimes {
	c := t.claims[name]
	if c == nil {
		c = &claimTimes{}
		t.claims[name] = c
	}
	return c
}

func setOnce(at *time.Time, now time.Time) {
	if at.IsZero() {
		*at = now
	}
}

func (t *tracker) onClaim(obj any) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok || pvc.Status.Phase != corev1.ClaimBound {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.entry(pvc.Name)
	setOnce(&c.bound, now)
	if !slices.Contains(pvc.Finalizers, provisionstate.ProvisioningProtectionFinalizer) {
		setOnce(&c.settled, now)
	}
}

func (t *tracker) onPV(obj any) {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Namespace != t.namespace {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pvs[pv.Name] = pv.Spec.ClaimRef.Name
}

func (t *tracker) onPVDeleted(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Namespace != t.namespace {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pvs, pv.Name)
	setOnce(&t.entry(pv.Spec.ClaimRef.Name).pvGone, now)
}

// markCreated records the benchmark's create call of a claim returning.
func (t *tracker) markCreated(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	setOnce(&t.entry(name).created, at)
}

// snapshot copies the records of the named claims; a claim never seen has
// a zero record.
func (t *tracker) snapshot(names []string) []claimTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]claimTimes, len(names))
	for i, n := range names {
		if c := t.claims[n]; c != nil {
			out[i] = *c
		}
	}
	return out
}

// count returns how many of the named claims satisfy done.
func (t *tracker) count(names []string, done func(*claimTimes) bool) int {
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

// livePVs returns how many PVs of the namespace's claims exist now.
func (t *tracker) livePVs() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pvs)
}

func isBound(c *claimTimes) bool   { return !c.bound.IsZero() }
func isSettled(c *claimTimes) bool { return !c.settled.IsZero() }
func isPVGone(c *claimTimes) bool  { return !c.pvGone.IsZero() }
