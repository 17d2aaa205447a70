package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

const (
	// cloneShare of the claims clone the golden claim.
	cloneShare = 0.25
	// boundWait bounds the wait of a claim meant to be deleted once bound;
	// one that is not bound by then is deleted anyway.
	boundWait = 2 * time.Minute
)

// Claim is one churned claim's life, in time since the start of the run
// (0: did not happen).
type Claim struct {
	Name  string `json:"name"`
	UID   string `json:"uid"`
	Clone bool   `json:"clone"`
	// DeleteWhenBound says the claim was meant to be deleted once bound;
	// otherwise at a random moment of its provisioning.
	DeleteWhenBound bool          `json:"deleteWhenBound"`
	Created         time.Duration `json:"created"`
	Bound           time.Duration `json:"bound,omitempty"`
	Deleted         time.Duration `json:"deleted,omitempty"`
	// Gone is when a sample first saw it no more.
	Gone time.Duration `json:"gone,omitempty"`
	// StuckAt is when a sample found it deleted for longer than
	// Options.StuckAfter.
	StuckAt time.Duration `json:"stuckAt,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// ledger holds every churned claim.
type ledger struct {
	start time.Time
	mu    sync.Mutex
	all   []*Claim
	// gone counts the claims of all that are gone.
	gone int
}

func (l *ledger) since() time.Duration { return time.Since(l.start) }

func (l *ledger) add(c *Claim) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, c)
}

// update changes a claim under the ledger's lock.
func (l *ledger) update(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

func (l *ledger) claims() []Claim {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Claim, len(l.all))
	for i, c := range l.all {
		out[i] = *c
	}
	return out
}

// goneCount is how many churned claims are gone so far.
func (l *ledger) goneCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gone
}

// observe records, from the names of the claims that exist now, which
// deleted ones are gone and which are stuck.
func (l *ledger) observe(existing map[string]bool, stuckAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Since(l.start)
	for _, c := range l.all {
		switch {
		case c.Deleted == 0 || c.Gone != 0:
		case !existing[c.Name]:
			c.Gone = now
			l.gone++
		case c.StuckAt == 0 && now-c.Deleted > stuckAfter:
			c.StuckAt = now
		}
	}
}

// churner creates and deletes claims, each worker one at a time.
type churner struct {
	client kubernetes.Interface
	ledger *ledger
	seed   uint64
	delay  time.Duration
}

// run churns with n workers until ctx ends; each deletes its last claim.
func (c *churner) run(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() { c.work(ctx, w) })
	}
	wg.Wait()
}

func (c *churner) work(ctx context.Context, w int) {
	logger := klog.FromContext(ctx).WithValues("worker", w)
	rng := rand.New(rand.NewPCG(c.seed, uint64(w)))
	// The last claim is deleted even once the churn is over.
	finish := context.WithoutCancel(ctx)
	for i := 0; ctx.Err() == nil; i++ {
		cl := &Claim{
			Name:            fmt.Sprintf("soak-%d-%d", w, i),
			Clone:           rng.Float64() < cloneShare,
			DeleteWhenBound: rng.Float64() < 0.5,
		}
		// Drawn up front so the schedule does not depend on timing.
		deleteAfter := time.Duration(rng.Float64() * float64(2*c.delay))
		pause := time.Duration(rng.Float64() * float64(time.Second))
		pvc, err := createClaim(finish, c.client, cl.Name, cl.Clone)
		if err != nil {
			logger.Error(err, "Churn stops")
			return
		}
		cl.UID, cl.Created = string(pvc.UID), c.ledger.since()
		c.ledger.add(cl)
		if cl.DeleteWhenBound {
			if waitBound(ctx, c.client, cl.Name, boundWait) {
				c.ledger.update(func() { cl.Bound = c.ledger.since() })
			}
			deleteAfter /= 2
		}
		sleep(ctx, deleteAfter)
		if err := deleteClaim(finish, c.client, cl.Name); err != nil {
			c.ledger.update(func() { cl.Error = err.Error() })
			logger.Error(err, "Churn stops")
			return
		}
		c.ledger.update(func() { cl.Deleted = c.ledger.since() })
		sleep(ctx, pause)
	}
}

// sleep paces the churn; it ends early with ctx.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
