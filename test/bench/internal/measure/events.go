package measure

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// eventLogMessage is how client-go's event broadcaster logs every event the
// sidecar records (StartStructuredLogging(0), so at any -v). The log shows
// each event even when the broadcaster later drops it unsent: its queue
// holds 1,000 events, sent one at a time, and it overflows when the API
// server is slow or the client throttled.
var eventLogMessage = []byte(`"Event occurred"`)

// RecordsEvent tells whether a sidecar's log line is client-go's line for
// an event it recorded.
func RecordsEvent(line []byte) bool { return bytes.Contains(line, eventLogMessage) }

// EventKey picks the lines of recorded events, as "event", for
// CountLogLines.
func EventKey(line []byte) string {
	if RecordsEvent(line) {
		return "event"
	}
	return ""
}

// EventWrites is how a sidecar's events reached kube-apiserver. Every
// event goes through client-go's broadcaster: a queue of 1,000 events,
// written one at a time through the sidecar's rate-limited client, that
// drops what does not fit. What it holds is part of the leader's heap.
type EventWrites struct {
	// Recorded counts the events the sidecars recorded ("Event occurred"
	// lines in their logs, all starts).
	Recorded int `json:"recorded"`
	// Created counts the events written; Counted the repeats written into
	// an earlier event (a patch of its count).
	Created int `json:"created"`
	Counted int `json:"counted"`
	// Delay is how long after being recorded an event was written, over
	// the events created: its median, 90th percentile and maximum.
	DelayMedian time.Duration `json:"delayMedian"`
	DelayP90    time.Duration `json:"delayP90"`
	DelayP99    time.Duration `json:"delayP99"`
	DelayMax    time.Duration `json:"delayMax"`
	// Distinct counts the recorded events told apart by object, reason and
	// message; DistinctWritten those of them kube-apiserver holds at the
	// end, with their message or folded into a combined event.
	Distinct        int `json:"distinct"`
	DistinctWritten int `json:"distinctWritten"`
}

// WrittenShare is the share of distinct recorded events written, 1 when
// none was recorded.
func (e EventWrites) WrittenShare() float64 {
	if e.Distinct == 0 {
		return 1
	}
	return float64(e.DistinctWritten) / float64(e.Distinct)
}

// Unwritten are the recorded events never written: dropped from a full
// queue, or queued in a sidecar when it was killed.
func (e EventWrites) Unwritten() int { return max(e.Recorded-e.Created-e.Counted, 0) }

// EventWriteTally collects EventWrites (all but Recorded, which the logs
// give) from the audit log's ResponseComplete events.
type EventWriteTally struct {
	user   string
	writes EventWrites
	delays []time.Duration
}

// NewEventWriteTally counts the events that user writes.
func NewEventWriteTally(user string) *EventWriteTally { return &EventWriteTally{user: user} }

// Observe counts ev if it is a successful write of a core event by the
// tally's user.
func (t *EventWriteTally) Observe(ev *framework.AuditEvent) {
	if ev.User.Username != t.user || ev.ObjectRef == nil || ev.ObjectRef.Resource != "events" || ev.ObjectRef.APIGroup != "" {
		return
	}
	if ev.ResponseStatus == nil || ev.ResponseStatus.Code/100 != 2 {
		return
	}
	switch ev.Verb {
	case "patch":
		t.writes.Counted++
	case "create":
		t.writes.Created++
		if at, ok := EventRecordedAt(ev.ObjectRef.Name); ok && !ev.RequestReceived.IsZero() {
			t.delays = append(t.delays, max(ev.RequestReceived.Sub(at), 0))
		}
	}
}

// Result is what the tally counted.
func (t *EventWriteTally) Result() EventWrites {
	w := t.writes
	if n := len(t.delays); n > 0 {
		slices.Sort(t.delays)
		w.DelayMedian = t.delays[n/2]
		w.DelayP90 = t.delays[n*9/10]
		w.DelayP99 = t.delays[n*99/100]
		w.DelayMax = t.delays[n-1]
	}
	return w
}

// EventRecordedAt reads when an event was recorded from its name, which
// client-go makes "<object>.<hex UnixNano>" (a UUID when that is too long).
func EventRecordedAt(eventName string) (time.Time, bool) {
	i := strings.LastIndexByte(eventName, '.')
	if i < 0 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(eventName[i+1:], 16, 64)
	if err != nil || ns <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}
