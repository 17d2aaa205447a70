package cmdutil

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// EventRecorder posts events to the API server. It outlives the run's
// context so that events of the last operations before shutdown are still
// sent.
type EventRecorder struct {
	record.EventRecorder
	broadcaster record.EventBroadcaster
	client      kubernetes.Interface
}

// NewEventRecorder returns a recorder whose events carry component as
// their source. Nothing is sent before Start.
func NewEventRecorder(ctx context.Context, client kubernetes.Interface, component string) *EventRecorder {
	b := record.NewBroadcaster(record.WithContext(context.WithoutCancel(ctx)))
	return &EventRecorder{
		EventRecorder: b.NewRecorder(scheme.Scheme, v1.EventSource{Component: component}),
		broadcaster:   b,
		client:        client,
	}
}

// Start begins sending events. The sending goroutine reads client-go's
// shared scheme to decode each response, so a caller starts it once
// nothing writes that scheme any more.
func (r *EventRecorder) Start() {
	r.broadcaster.StartStructuredLogging(0)
	r.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: r.client.CoreV1().Events(v1.NamespaceAll)})
}

// Stop flushes what is queued and stops sending.
func (r *EventRecorder) Stop() { r.broadcaster.Shutdown() }
