package controller

import (
	"context"
	"encoding/json"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// The provisioning library v10 prefixes every Provision error in its
// ProvisioningFailed event with libraryFailurePrefix and the class name;
// v13, which upstream v6.3.0 uses, sends the error alone. Alerts that match
// upstream's events must match ours, so the prefix is cut where the
// library's events leave for the API server: the library's recorder is
// private and writes only through the client it was given.
const (
	reasonProvisioningFailed = "ProvisioningFailed"
	libraryFailurePrefix     = "failed to provision volume with StorageClass \""
	// client-go's event aggregation puts this before a message; it stays.
	combinedPrefix = "(combined from similar events): "
)

// upstreamEventMessage returns the message upstream would send for an
// event of the library with this reason and message.
func upstreamEventMessage(reason, message string) string {
	if reason != reasonProvisioningFailed {
		return message
	}
	combined, rest := "", message
	if strings.HasPrefix(rest, combinedPrefix) {
		combined, rest = combinedPrefix, rest[len(combinedPrefix):]
	}
	if !strings.HasPrefix(rest, libraryFailurePrefix) {
		return message
	}
	// A StorageClass name holds no quote, so the first `": ` ends it.
	_, err, ok := strings.Cut(rest[len(libraryFailurePrefix):], "\": ")
	if !ok {
		return message
	}
	return combined + err
}

// libraryEvents is the event client of the library's recorder. It sends
// each event with upstream's message and hands the recorder back the
// server's copy with the message it sent, as the recorder keys its
// repeat counting by message.
type libraryEvents struct {
	corev1client.EventInterface
}

func (e libraryEvents) CreateWithEventNamespace(event *v1.Event) (*v1.Event, error) {
	return e.CreateWithEventNamespaceWithContext(context.Background(), event)
}

func (e libraryEvents) CreateWithEventNamespaceWithContext(ctx context.Context, event *v1.Event) (*v1.Event, error) {
	return sendAsUpstream(event, func(sent *v1.Event) (*v1.Event, error) {
		return e.EventInterface.CreateWithEventNamespaceWithContext(ctx, sent)
	})
}

func (e libraryEvents) UpdateWithEventNamespace(event *v1.Event) (*v1.Event, error) {
	return e.UpdateWithEventNamespaceWithContext(context.Background(), event)
}

func (e libraryEvents) UpdateWithEventNamespaceWithContext(ctx context.Context, event *v1.Event) (*v1.Event, error) {
	return sendAsUpstream(event, func(sent *v1.Event) (*v1.Event, error) {
		return e.EventInterface.UpdateWithEventNamespaceWithContext(ctx, sent)
	})
}

func (e libraryEvents) PatchWithEventNamespace(event *v1.Event, data []byte) (*v1.Event, error) {
	return e.PatchWithEventNamespaceWithContext(context.Background(), event, data)
}

// PatchWithEventNamespaceWithContext: a repeat is a patch of count and
// time, with the message only when aggregation changed it.
func (e libraryEvents) PatchWithEventNamespaceWithContext(ctx context.Context, event *v1.Event, data []byte) (*v1.Event, error) {
	var fields map[string]json.RawMessage
	var message string
	if json.Unmarshal(data, &fields) == nil && json.Unmarshal(fields["message"], &message) == nil {
		if upstream := upstreamEventMessage(event.Reason, message); upstream != message {
			if raw, err := json.Marshal(upstream); err == nil {
				fields["message"] = raw
				if patched, err := json.Marshal(fields); err == nil {
					data = patched
				}
			}
		}
	}
	got, err := e.EventInterface.PatchWithEventNamespaceWithContext(ctx, event, data)
	if got != nil && got.Message == upstreamEventMessage(event.Reason, event.Message) {
		got.Message = event.Message
	}
	return got, err
}

// sendAsUpstream sends a copy of event with upstream's message (event
// itself if that is the same), and returns the server's copy with the
// message the recorder knows, as it keys its repeat counting by message.
func sendAsUpstream(event *v1.Event, send func(*v1.Event) (*v1.Event, error)) (*v1.Event, error) {
	upstream := upstreamEventMessage(event.Reason, event.Message)
	if upstream == event.Message {
		return send(event)
	}
	sent := event.DeepCopy()
	sent.Message = upstream
	got, err := send(sent)
	if got != nil {
		got.Message = event.Message
	}
	return got, err
}
