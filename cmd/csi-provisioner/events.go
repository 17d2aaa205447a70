package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// eventComponent is the event source upstream uses for its own events.
const eventComponent = "external-provisioner"

// eventRecorder posts events to the API server. It outlives the run's
// context so that events of the last operations before shutdown are still
// sent.
type eventRecorder struct {
	record.EventRecorder
	broadcaster record.EventBroadcaster
	client      kubernetes.Interface
}

func newEventRecorder(ctx context.Context, client kubernetes.Interface) *eventRecorder {
	b := record.NewBroadcaster(record.WithContext(context.WithoutCancel(ctx)))
	return &eventRecorder{
		EventRecorder: b.NewRecorder(scheme.Scheme, v1.EventSource{Component: eventComponent}),
		broadcaster:   b,
		client:        client,
	}
}

// start begins sending events. It must come after the provisioning library
// is set up: the library writes to the shared scheme when it is created,
// and the sending goroutine reads that scheme to decode each response.
func (r *eventRecorder) start() {
	r.broadcaster.StartStructuredLogging(0)
	r.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: r.client.CoreV1().Events(v1.NamespaceAll)})
}

func (r *eventRecorder) stop() { r.broadcaster.Shutdown() }
