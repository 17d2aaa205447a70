package testutil

import (
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/record"
)

// Drain returns the events a fake recorder has buffered, without waiting.
func Drain(events <-chan string) []string {
	var out []string
	for {
		select {
		case ev := <-events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// Events is a fake event recorder that keeps every event it was given,
// as record.FakeRecorder's lines: "Type Reason message".
type Events struct {
	*record.FakeRecorder
	mu   sync.Mutex
	seen []string
	new  int
}

// NewEvents is an Events whose buffer holds more events than a test
// records, so that a controller never blocks on it.
func NewEvents() *Events {
	return &Events{FakeRecorder: record.NewFakeRecorder(1000)}
}

// take moves what the fake buffered into seen.
func (e *Events) take() {
	e.seen = append(e.seen, Drain(e.FakeRecorder.Events)...)
}

// Drain returns the events recorded since the last Drain, oldest first.
func (e *Events) Drain() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.take()
	out := append([]string(nil), e.seen[e.new:]...)
	e.new = len(e.seen)
	return out
}

// All returns every event recorded so far, drained or not.
func (e *Events) All() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.take()
	return append([]string(nil), e.seen...)
}

// WithReason returns every event of reason recorded so far.
func (e *Events) WithReason(reason string) []string {
	return WithReason(e.All(), reason)
}

// Wait waits until an event of reason whose line contains every part has
// been recorded, and returns it; the test fails after timeout.
func (e *Events) Wait(t testing.TB, timeout time.Duration, reason string, parts ...string) string {
	t.Helper()
	var found string
	Eventually(t, timeout, "an event "+reason+" saying "+strings.Join(parts, ", "), func() bool {
		for _, ev := range e.WithReason(reason) {
			if containsAll(ev, parts) {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// WithReason keeps the events, as record.FakeRecorder's lines, of reason.
func WithReason(events []string, reason string) []string {
	var out []string
	for _, ev := range events {
		if ReasonOf(ev) == reason {
			out = append(out, ev)
		}
	}
	return out
}

// ReasonOf is the reason of an event line of record.FakeRecorder.
func ReasonOf(line string) string {
	fields := strings.SplitN(line, " ", 3)
	if len(fields) < 2 {
		return ""
	}
	return fields[1]
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
