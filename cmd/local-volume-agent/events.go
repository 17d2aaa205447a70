package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// eventComponent is the source of the agent's events.
const eventComponent = "local-volume-agent"

// eventRecorder posts events to the API server. It outlives the run's
// context so that events of the last operations before shutdown are still
// sent.
//
// The agent emits events on PVs (typed, known to the client-go scheme) and
// on LocalVolumes and LocalVolumeSets as the *unstructured.Unstructured
// objects it listed, which carry apiVersion and kind: the recorder names
// those from the object itself, and a scheme could not name an unstructured
// object without them anyway. So the client-go scheme is enough, and the
// local API types are not registered into it (which would also change a
// process-wide scheme).
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

// start begins sending events.
func (r *eventRecorder) start() {
	r.broadcaster.StartStructuredLogging(0)
	r.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: r.client.CoreV1().Events(v1.NamespaceAll)})
}

// stop flushes what is queued and stops sending.
func (r *eventRecorder) stop() { r.broadcaster.Shutdown() }
