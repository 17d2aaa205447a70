package library

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

const waitMessage = "rpc error: code = Unavailable desc = driver busy"

func newTestWaitNotes(limit int) (*waitNotes, *clocktesting.FakePassiveClock) {
	clock := clocktesting.NewFakePassiveClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	return newWaitNotes(clock, time.Minute, limit), clock
}

func TestWaitNoteIsFoundByObjectReasonAndMessage(t *testing.T) {
	notes, _ := newTestWaitNotes(10)
	notes.note("claim-1", ReasonProvisioningFailed, waitMessage)

	cases := []struct {
		name    string
		uid     types.UID
		reason  string
		message string
		want    bool
	}{
		{"the noted failure", "claim-1", ReasonProvisioningFailed, waitMessage, true},
		{"another object", "claim-2", ReasonProvisioningFailed, waitMessage, false},
		{"another reason", "claim-1", ReasonVolumeFailedDelete, waitMessage, false},
		{"another message", "claim-1", ReasonProvisioningFailed, "rpc error: code = Internal desc = driver busy", false},
	}
	for _, tc := range cases {
		if got := notes.isNoted(tc.uid, tc.reason, tc.message); got != tc.want {
			t.Errorf("%s: isNoted = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWaitNoteExpiresAndIsForgottenAtTheNextNote(t *testing.T) {
	notes, clock := newTestWaitNotes(10)
	notes.note("claim-1", ReasonProvisioningFailed, waitMessage)

	clock.SetTime(clock.Now().Add(time.Minute))
	if !notes.isNoted("claim-1", ReasonProvisioningFailed, waitMessage) {
		t.Fatal("a note is gone when its time is up, want it kept that long")
	}
	clock.SetTime(clock.Now().Add(time.Nanosecond))
	if notes.isNoted("claim-1", ReasonProvisioningFailed, waitMessage) {
		t.Fatal("an expired note is still found")
	}
	notes.note("claim-2", ReasonProvisioningFailed, waitMessage)
	if got := notes.count(); got != 1 {
		t.Errorf("%d notes held after the next note, want the expired one forgotten", got)
	}
}

func TestWaitNoteNotedAgainLastsFromThen(t *testing.T) {
	notes, clock := newTestWaitNotes(10)
	notes.note("claim-1", ReasonProvisioningFailed, waitMessage)
	clock.SetTime(clock.Now().Add(50 * time.Second))
	notes.note("claim-1", ReasonProvisioningFailed, waitMessage)
	clock.SetTime(clock.Now().Add(50 * time.Second))
	if !notes.isNoted("claim-1", ReasonProvisioningFailed, waitMessage) {
		t.Error("a failure noted again 50s ago is no longer noted")
	}
}

func TestWaitNotesKeepTheMostRecentUpToTheirLimit(t *testing.T) {
	notes, _ := newTestWaitNotes(2)
	notes.note("a", ReasonProvisioningFailed, waitMessage)
	notes.note("b", ReasonProvisioningFailed, waitMessage)
	notes.note("a", ReasonProvisioningFailed, waitMessage) // a is the most recent now
	notes.note("c", ReasonProvisioningFailed, waitMessage)

	for uid, want := range map[types.UID]bool{"a": true, "b": false, "c": true} {
		if got := notes.isNoted(uid, ReasonProvisioningFailed, waitMessage); got != want {
			t.Errorf("%s noted = %v, want %v", uid, got, want)
		}
	}
	if got := notes.count(); got != 2 {
		t.Errorf("%d notes held, want the limit of 2", got)
	}
}

// Provisioning threads note while the library's event goroutine reads.
func TestWaitNotesAreSafeForConcurrentUse(t *testing.T) {
	notes, _ := newTestWaitNotes(50)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				uid := types.UID(fmt.Sprintf("claim-%d-%d", w, i%60))
				notes.note(uid, ReasonProvisioningFailed, waitMessage)
				notes.isNoted(uid, ReasonProvisioningFailed, waitMessage)
			}
		}()
	}
	wg.Wait()
	if got := notes.count(); got != 50 {
		t.Errorf("%d notes held, want the limit of 50", got)
	}
}
