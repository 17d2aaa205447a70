package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// firstClaimPoll is how often the first claim is read: its time to Bound
// is late by up to this, against seconds of sync at 50,000 pairs.
const firstClaimPoll = 50 * time.Millisecond

// firstClaim is a claim created right after a sidecar process started,
// before it could have synced: the time until it is Bound is what a user
// whose claim arrives during a restart waits, the sidecar's start, cache
// sync, provisioning and the binder's binding together.
type firstClaim struct {
	name string
	// done is closed once the claim was seen Bound.
	done chan struct{}

	mu     sync.Mutex
	bound  time.Time
	volume string
}

// startFirstClaim creates the claim and reads it every firstClaimPoll until
// it is Bound or ctx ends.
func startFirstClaim(ctx context.Context, client kubernetes.Interface, name string) (*firstClaim, error) {
	claims := client.CoreV1().PersistentVolumeClaims(bench.ClaimNamespace)
	if _, err := claims.Create(ctx, bench.NewClaim(name), metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create the first claim: %w", err)
	}
	f := &firstClaim{name: name, done: make(chan struct{})}
	go func() {
		t := time.NewTicker(firstClaimPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			c, err := claims.Get(ctx, name, metav1.GetOptions{})
			if err != nil || c.Status.Phase != corev1.ClaimBound {
				continue
			}
			f.mu.Lock()
			f.bound, f.volume = time.Now(), c.Spec.VolumeName
			f.mu.Unlock()
			close(f.done)
			return
		}
	}()
	return f, nil
}

// wait waits until the claim is Bound, timeout passes or ctx ends.
func (f *firstClaim) wait(ctx context.Context, timeout time.Duration) error {
	select {
	case <-f.done:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("the first claim %s not Bound after %s", f.name, timeout)
	case <-ctx.Done():
		return fmt.Errorf("stopped waiting for the first claim %s: %w", f.name, context.Cause(ctx))
	}
}

// boundAt is when the claim was seen Bound and its volume; ok is false
// while it was not.
func (f *firstClaim) boundAt() (at time.Time, volume string, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bound, f.volume, !f.bound.IsZero()
}
