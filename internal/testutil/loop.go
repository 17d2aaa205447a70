package testutil

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

// Syncs records the outcome of every sync a reconcile loop reports to its
// Processed hook, by key, so that a test waits for a sync rather than for
// time. The zero value is ready to use.
type Syncs[K comparable] struct {
	mu   sync.Mutex
	errs map[K][]error
}

// Processed is the loop's Processed hook.
func (s *Syncs[K]) Processed(key K, _ reconcile.Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errs == nil {
		s.errs = map[K][]error{}
	}
	s.errs[key] = append(s.errs[key], err)
}

// Of returns the outcomes of the syncs of key so far, oldest first.
func (s *Syncs[K]) Of(key K) []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.errs[key])
}

// Count is how many syncs of key have ended.
func (s *Syncs[K]) Count(key K) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.errs[key])
}

// Wait waits until key has been synced at least n times in all, or fails
// the test after timeout, and returns the outcomes so far.
func (s *Syncs[K]) Wait(t testing.TB, timeout time.Duration, key K, n int) []error {
	t.Helper()
	var outcomes []error
	Eventually(t, timeout, fmt.Sprintf("%d syncs of %v", n, key), func() bool {
		outcomes = s.Of(key)
		return len(outcomes) >= n
	})
	return outcomes
}

// WaitAfter waits until key has been synced more than n times in all, and
// returns the outcome of the sync after the first n: a test that counted
// n syncs before it changed something waits for the sync that sees it.
func (s *Syncs[K]) WaitAfter(t testing.TB, timeout time.Duration, key K, n int) error {
	t.Helper()
	outcomes := s.Wait(t, timeout, key, n+1)
	if len(outcomes) <= n {
		return nil // the wait has failed the test
	}
	return outcomes[n]
}

// InstantRetries is a rate limiter without delays, so that a test stepping
// a loop gets a retried key back at once; NumRequeues still counts the
// retries of a key since it last synced without error.
func InstantRetries[K comparable]() workqueue.TypedRateLimiter[K] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[K](0, 0)
}
