package controller

import (
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
)

// ownerBackoff is how long a sidecar waits before trying to take a claim
// with Immediate binding: exponential per claim (base, 2*base, ... capped
// at max) minus a random jitter of up to base, so that the sidecars of many
// nodes do not all write the claim at once (upstream's thundering-herd
// guard). A first attempt therefore waits between zero and base.
type ownerBackoff struct {
	base    time.Duration
	limiter workqueue.TypedRateLimiter[types.UID]
	// jitter returns a fraction in [0, 1).
	jitter func() float64
}

func newOwnerBackoff(base, maxDelay time.Duration) *ownerBackoff {
	return &ownerBackoff{
		base:    base,
		limiter: workqueue.NewTypedItemExponentialFailureRateLimiter[types.UID](base, maxDelay),
		jitter:  rand.Float64, // safe for concurrent use
	}
}

// next returns the wait before the next attempt on a claim and how many
// attempts preceded it, and counts the attempt.
func (b *ownerBackoff) next(uid types.UID) (time.Duration, int) {
	attempts := b.limiter.NumRequeues(uid)
	delay := b.limiter.When(uid) - time.Duration(b.jitter()*float64(b.base))
	return max(delay, 0), attempts
}

// forget starts the claim's back-off from scratch.
func (b *ownerBackoff) forget(uid types.UID) {
	b.limiter.Forget(uid)
}
