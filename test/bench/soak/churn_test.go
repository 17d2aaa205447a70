package soak

import (
	"testing"
	"time"
)

// A deleted claim a sample no longer sees is gone from then on; one still
// there longer than the bound after its deletion is stuck; a claim not yet
// deleted is neither.
func TestLedgerObservesGoneAndStuckClaims(t *testing.T) {
	start := time.Now().Add(-10 * time.Minute)
	l := &ledger{start: start}
	gone := &Claim{Name: "gone", Deleted: time.Minute}
	stuck := &Claim{Name: "stuck", Deleted: time.Minute}
	recent := &Claim{Name: "recent", Deleted: 9 * time.Minute}
	live := &Claim{Name: "live"}
	for _, c := range []*Claim{gone, stuck, recent, live} {
		l.add(c)
	}
	l.observe(map[string]bool{"stuck": true, "recent": true, "live": true}, 5*time.Minute)
	if gone.Gone == 0 || gone.StuckAt != 0 {
		t.Errorf("gone: %+v, want gone and not stuck", *gone)
	}
	if stuck.Gone != 0 || stuck.StuckAt == 0 {
		t.Errorf("stuck: %+v, want stuck", *stuck)
	}
	if recent.Gone != 0 || recent.StuckAt != 0 {
		t.Errorf("recent: %+v, want neither gone nor stuck", *recent)
	}
	if live.Gone != 0 || live.StuckAt != 0 {
		t.Errorf("live: %+v, want neither gone nor stuck", *live)
	}
	if n := l.goneCount(); n != 1 {
		t.Errorf("%d gone, want 1", n)
	}
	first := gone.Gone
	l.observe(map[string]bool{"live": true}, 5*time.Minute)
	if gone.Gone != first {
		t.Errorf("a gone claim's time moved from %s to %s", first, gone.Gone)
	}
	// The stuck and the recent claim are gone now too; the first is not
	// counted twice.
	if n := l.goneCount(); n != 3 {
		t.Errorf("%d gone, want 3", n)
	}
}
