package measure

import (
	"bytes"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// DistinctEvent is an event as a user tells it apart from another: the
// object it is about, its reason and its message.
type DistinctEvent struct {
	Kind    string `json:"kind"`
	Object  string `json:"object"` // namespace/name, or name for cluster-scoped objects
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// combinedPrefix starts the message of an event client-go's correlator
// made of many similar ones (same object and reason, other messages).
const combinedPrefix = "(combined from similar events): "

// ParseRecordedEvent reads the event of a sidecar's "Event occurred" log
// line (klog's text format, values quoted as Go strings).
func ParseRecordedEvent(line []byte) (DistinctEvent, bool) {
	if !RecordsEvent(line) {
		return DistinctEvent{}, false
	}
	var e DistinctEvent
	for _, f := range []struct {
		key string
		to  *string
	}{{"object", &e.Object}, {"kind", &e.Kind}, {"reason", &e.Reason}, {"message", &e.Message}} {
		v, ok := quotedValue(line, f.key)
		if !ok {
			return DistinctEvent{}, false
		}
		*f.to = v
	}
	return e, true
}

// quotedValue returns the Go-quoted value of key=" in a klog text line.
func quotedValue(line []byte, key string) (string, bool) {
	i := bytes.Index(line, []byte(" "+key+`="`))
	if i < 0 {
		return "", false
	}
	start := i + len(key) + 2
	for j := start + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '"':
			v, err := strconv.Unquote(string(line[start : j+1]))
			return v, err == nil
		}
	}
	return "", false
}

// WrittenEvents are the events kube-apiserver holds, as a user sees them.
type WrittenEvents struct {
	exact    map[DistinctEvent]bool
	combined map[DistinctEvent]bool // by object and reason only
}

// NewWrittenEvents indexes events listed from the API.
func NewWrittenEvents(events []v1.Event) WrittenEvents {
	w := WrittenEvents{exact: map[DistinctEvent]bool{}, combined: map[DistinctEvent]bool{}}
	for _, ev := range events {
		o := ev.InvolvedObject
		key := DistinctEvent{Kind: o.Kind, Object: o.Name, Reason: ev.Reason}
		if o.Namespace != "" {
			key.Object = o.Namespace + "/" + o.Name
		}
		if msg, ok := strings.CutPrefix(ev.Message, combinedPrefix); ok {
			w.combined[key] = true
			key.Message = msg
		} else {
			key.Message = ev.Message
		}
		w.exact[key] = true
	}
	return w
}

// Holds tells whether a user reading the events sees e: written with its
// message, or folded with similar ones into a combined event.
func (w WrittenEvents) Holds(e DistinctEvent) bool {
	if w.exact[e] {
		return true
	}
	e.Message = ""
	return w.combined[e]
}
