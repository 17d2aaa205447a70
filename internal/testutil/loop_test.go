package testutil

import (
	"errors"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

// Outcomes are kept per key in order, while the loop's workers report them.
func TestSyncsRecordsOutcomesByKey(t *testing.T) {
	var s Syncs[string]
	failed := errors.New("conflict")
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Processed("a", reconcile.Done, failed)
		s.Processed("b", reconcile.Done, nil)
		s.Processed("a", reconcile.Done, nil)
	}()
	got := s.Wait(t, 5*time.Second, "a", 2)
	<-done
	if len(got) != 2 || got[0] != failed || got[1] != nil {
		t.Errorf("outcomes of a = %v, want [%v <nil>]", got, failed)
	}
	if n := s.Count("b"); n != 1 {
		t.Errorf("syncs of b = %d, want 1", n)
	}
	if got := s.Of("c"); len(got) != 0 {
		t.Errorf("outcomes of c = %v, want none", got)
	}

	f := &fatals{TB: t}
	if got := s.Wait(f, 0, "b", 2); len(got) != 1 || len(f.msgs) != 1 || f.msgs[0] != "timed out waiting for 2 syncs of b" {
		t.Errorf("waiting for a sync that never comes: got %v, failures %q", got, f.msgs)
	}
}

func TestInstantRetriesCountsWithoutDelay(t *testing.T) {
	limiter := InstantRetries[int]()
	for i := range 3 {
		if d := limiter.When(7); d != 0 {
			t.Fatalf("retry %d after %v, want at once", i, d)
		}
	}
	if n := limiter.NumRequeues(7); n != 3 {
		t.Errorf("NumRequeues = %d, want 3", n)
	}
	limiter.Forget(7)
	if n := limiter.NumRequeues(7); n != 0 {
		t.Errorf("NumRequeues after Forget = %d, want 0", n)
	}
}

// WaitAfter returns the outcome of the first sync after those counted.
func TestSyncsWaitAfterReturnsTheNextOutcome(t *testing.T) {
	var s Syncs[string]
	failed := errors.New("conflict")
	s.Processed("a", reconcile.Done, nil)
	before := s.Count("a")
	go func() {
		s.Processed("a", reconcile.Done, failed)
		s.Processed("a", reconcile.Done, nil)
	}()
	if err := s.WaitAfter(t, 5*time.Second, "a", before); err != failed {
		t.Errorf("outcome %v, want the conflict of the sync after the first", err)
	}
}
