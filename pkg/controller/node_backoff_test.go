package controller

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestOwnerBackoffDoublesUpToMaxAndSubtractsJitter(t *testing.T) {
	b := newOwnerBackoff(10*time.Millisecond, 35*time.Millisecond)
	b.jitter = func() float64 { return 0 }
	uid, other := types.UID("a"), types.UID("b")
	for i, want := range []time.Duration{10, 20, 35, 35} {
		delay, attempts := b.next(uid)
		if delay != want*time.Millisecond || attempts != i {
			t.Fatalf("attempt %d: delay %s after %d attempts, want %s", i, delay, attempts, want*time.Millisecond)
		}
	}
	if delay, _ := b.next(other); delay != 10*time.Millisecond {
		t.Fatalf("another claim waits %s, want its own first delay", delay)
	}
	b.forget(uid)
	b.jitter = func() float64 { return 0.99 }
	if delay, attempts := b.next(uid); attempts != 0 || delay > time.Millisecond {
		t.Fatalf("after forget: delay %s after %d attempts, want a first attempt less the jitter", delay, attempts)
	}
	if delay, _ := newOwnerBackoff(0, 0).next(uid); delay != 0 {
		t.Fatalf("zero base delay waits %s", delay)
	}
}
