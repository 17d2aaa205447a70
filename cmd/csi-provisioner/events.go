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

// newEventRecorder returns a recorder that posts events to the API server and
// a function that stops it. It outlives ctx so that events of the last
// operations before shutdown are still sent.
func newEventRecorder(ctx context.Context, client kubernetes.Interface) (record.EventRecorder, func()) {
	b := record.NewBroadcaster(record.WithContext(context.WithoutCancel(ctx)))
	b.StartStructuredLogging(0)
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events(v1.NamespaceAll)})
	return b.NewRecorder(scheme.Scheme, v1.EventSource{Component: eventComponent}), b.Shutdown
}
