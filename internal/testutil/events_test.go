package testutil

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

func TestDrainTakesWhatIsBuffered(t *testing.T) {
	ch := make(chan string, 3)
	ch <- "a"
	ch <- "b"
	if got := Drain(ch); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("got %v", got)
	}
	if got := Drain(ch); len(got) != 0 {
		t.Errorf("second drain got %v", got)
	}
}

// Drain returns what is new, All and WithReason everything so far.
func TestEventsKeepsWhatWasDrained(t *testing.T) {
	e := NewEvents()
	pv := NewPV("pv")
	e.Event(pv, v1.EventTypeNormal, "Kept", "kept until Monday")
	e.Event(pv, v1.EventTypeWarning, "Failed", "the Kept annotation is wrong")
	if got := e.Drain(); len(got) != 2 || got[0] != "Normal Kept kept until Monday" {
		t.Fatalf("first drain %q", got)
	}
	e.Event(pv, v1.EventTypeNormal, "Kept", "kept until Tuesday")
	if got := e.Drain(); len(got) != 1 || got[0] != "Normal Kept kept until Tuesday" {
		t.Errorf("second drain %q, want the new event alone", got)
	}
	if got := e.All(); len(got) != 3 {
		t.Errorf("all %q, want 3", got)
	}
	if got := e.WithReason("Kept"); len(got) != 2 {
		t.Errorf("events of reason Kept %q, want the two whose reason it is", got)
	}
}

func TestEventsWaitFindsAnEventOfItsReasonSayingEveryPart(t *testing.T) {
	e := NewEvents()
	go func() {
		// Real time passes on purpose: the event must come after Wait
		// has begun, to show that Wait waits for it.
		time.Sleep(10 * time.Millisecond)
		e.Eventf(NewClaim("apps", "db"), v1.EventTypeWarning, "Forbidden", "must allow %s on %s", "update", "PersistentVolumeClaim")
	}()
	if got := e.Wait(t, 5*time.Second, "Forbidden", "update", "PersistentVolumeClaim"); got != "Warning Forbidden must allow update on PersistentVolumeClaim" {
		t.Errorf("got %q", got)
	}
	f := &fatals{TB: t}
	e.Wait(f, 0, "Forbidden", "patch")
	if len(f.msgs) != 1 || f.msgs[0] != "timed out waiting for an event Forbidden saying patch" {
		t.Errorf("failures %q", f.msgs)
	}
}

func TestReasonOfIsTheSecondWord(t *testing.T) {
	for line, want := range map[string]string{
		"Normal Kept the message": "Kept",
		"Warning Failed":          "Failed",
		"Normal":                  "",
	} {
		if got := ReasonOf(line); got != want {
			t.Errorf("ReasonOf(%q) = %q, want %q", line, got, want)
		}
	}
}
