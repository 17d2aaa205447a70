package main

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
)

// eventComponent is the event source upstream uses for its own events.
const eventComponent = "external-provisioner"

// newEventRecorder returns the sidecar's recorder. Start it only after the
// provisioning library is set up: the library writes client-go's shared
// scheme when it is created, and the sending goroutine reads it.
func newEventRecorder(ctx context.Context, client kubernetes.Interface) *cmdutil.EventRecorder {
	return cmdutil.NewEventRecorder(ctx, client, eventComponent)
}
