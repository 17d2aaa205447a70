package library

import (
	"context"
	"encoding/json"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// Library v10 prefixes every Provision error in its ProvisioningFailed
// event with failurePrefix and the class name; v13, which upstream v6.3.0
// uses, sends the error alone. Alerts that match upstream's events must
// match ours, so the prefix is cut where the library's events leave for the
// API server: the library's recorder is private and writes only through
// the client it was given.
//
// A failure of Provision or Delete that is a wait, which a retry resolves
// without anyone's help, is reported there with a Normal event; any other
// keeps the library's (and upstream's) Warning, which is for what needs a
// person. Reason and message stay upstream's: alerts match them. The
// library posts its failure events itself, always as Warnings, so the
// provisioner notes each failure that is a wait (NoteWait), and the
// library's event of that object and message is sent as Normal.

// combinedPrefix is what client-go's event aggregation puts before a
// message; it stays.
const combinedPrefix = "(combined from similar events): "

// NoteWait notes that the failure of Provision (reason
// ReasonProvisioningFailed, on the claim uid) or Delete
// (ReasonVolumeFailedDelete, on the PV uid) with this message is a wait,
// for the library's event of it that follows.
func (a *Adapter) NoteWait(uid types.UID, reason, message string) {
	a.waits.note(uid, reason, message)
}

// upstreamEventMessage returns the message upstream would send for an
// event of the library with this reason and message.
func upstreamEventMessage(reason, message string) string {
	if reason != ReasonProvisioningFailed {
		return message
	}
	combined, rest := "", message
	if strings.HasPrefix(rest, combinedPrefix) {
		combined, rest = combinedPrefix, rest[len(combinedPrefix):]
	}
	if !strings.HasPrefix(rest, failurePrefix) {
		return message
	}
	// A StorageClass name holds no quote, so the first `": ` ends it.
	_, err, ok := strings.Cut(rest[len(failurePrefix):], "\": ")
	if !ok {
		return message
	}
	return combined + err
}

// isLibraryFailure tells the library's failure events, Warnings that
// libraryEvents sends as Normal when the failure is a wait.
func isLibraryFailure(event *v1.Event) bool {
	return event.Type == v1.EventTypeWarning && (event.Reason == ReasonProvisioningFailed || event.Reason == ReasonVolumeFailedDelete)
}

// sentEventType returns the type to send an event of the library with,
// whose message is sent as message: Normal for a failure the provisioner
// noted as a wait (NoteWait), the library's type otherwise (upstream
// sends every failure as a Warning).
func sentEventType(waits *waitNotes, event *v1.Event, message string) string {
	if isLibraryFailure(event) && waits.isNoted(event.InvolvedObject.UID, event.Reason, strings.TrimPrefix(message, combinedPrefix)) {
		return v1.EventTypeNormal
	}
	return event.Type
}

// libraryEvents is the event client of the library's recorder. It sends
// each event with upstream's message and the type its failure calls for,
// and hands the recorder back the server's copy with the recorder's own
// message and type, as the recorder keys its repeat counting by both.
type libraryEvents struct {
	corev1client.EventInterface
	// waits are the provisioner's notes of its failures that are waits.
	waits *waitNotes
}

func (e libraryEvents) CreateWithEventNamespace(event *v1.Event) (*v1.Event, error) {
	return e.CreateWithEventNamespaceWithContext(context.Background(), event)
}

func (e libraryEvents) CreateWithEventNamespaceWithContext(ctx context.Context, event *v1.Event) (*v1.Event, error) {
	return sendAsUpstream(e.waits, event, func(sent *v1.Event) (*v1.Event, error) {
		return e.EventInterface.CreateWithEventNamespaceWithContext(ctx, sent)
	})
}

func (e libraryEvents) UpdateWithEventNamespace(event *v1.Event) (*v1.Event, error) {
	return e.UpdateWithEventNamespaceWithContext(context.Background(), event)
}

func (e libraryEvents) UpdateWithEventNamespaceWithContext(ctx context.Context, event *v1.Event) (*v1.Event, error) {
	return sendAsUpstream(e.waits, event, func(sent *v1.Event) (*v1.Event, error) {
		return e.EventInterface.UpdateWithEventNamespaceWithContext(ctx, sent)
	})
}

func (e libraryEvents) PatchWithEventNamespace(event *v1.Event, data []byte) (*v1.Event, error) {
	return e.PatchWithEventNamespaceWithContext(context.Background(), event, data)
}

// PatchWithEventNamespaceWithContext: a repeat is a patch of count, time
// and message (the one aggregation may have changed). A library failure's
// patch carries the type of its message too: an aggregated event's message
// may be a wait's now, and another's later.
func (e libraryEvents) PatchWithEventNamespaceWithContext(ctx context.Context, event *v1.Event, data []byte) (*v1.Event, error) {
	var fields map[string]json.RawMessage
	var message string
	if json.Unmarshal(data, &fields) == nil && json.Unmarshal(fields["message"], &message) == nil {
		upstream := upstreamEventMessage(event.Reason, message)
		changed := false
		if upstream != message {
			fields["message"], changed = jsonString(upstream), true
		}
		if isLibraryFailure(event) {
			fields["type"], changed = jsonString(sentEventType(e.waits, event, upstream)), true
		}
		if patched, err := json.Marshal(fields); err == nil && changed {
			data = patched
		}
	}
	got, err := e.EventInterface.PatchWithEventNamespaceWithContext(ctx, event, data)
	if got != nil && got.Message == upstreamEventMessage(event.Reason, event.Message) {
		got.Message = event.Message
	}
	if got != nil && isLibraryFailure(event) {
		got.Type = event.Type
	}
	return got, err
}

// jsonString encodes s, which cannot fail.
func jsonString(s string) json.RawMessage {
	raw, _ := json.Marshal(s)
	return raw
}

// sendAsUpstream sends a copy of event with upstream's message and the type
// its failure calls for (event itself if those are its own), and returns
// the server's copy with the message and type the recorder knows, as it
// keys its repeat counting by both.
func sendAsUpstream(waits *waitNotes, event *v1.Event, send func(*v1.Event) (*v1.Event, error)) (*v1.Event, error) {
	message := upstreamEventMessage(event.Reason, event.Message)
	eventType := sentEventType(waits, event, message)
	if message == event.Message && eventType == event.Type {
		return send(event)
	}
	sent := event.DeepCopy()
	sent.Message, sent.Type = message, eventType
	got, err := send(sent)
	if got != nil {
		got.Message, got.Type = event.Message, event.Type
	}
	return got, err
}
