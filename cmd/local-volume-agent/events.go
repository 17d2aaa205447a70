package main

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
)

// eventComponent is the source of the agent's events.
const eventComponent = "local-volume-agent"

// newEventRecorder returns the agent's recorder.
//
// The agent emits events on PVs (typed, known to the client-go scheme) and
// on LocalVolumes and LocalVolumeSets through object references, which
// carry apiVersion and kind: the recorder takes those as they are. So the
// client-go scheme is enough, and the local API types are not registered
// into that process-wide scheme.
func newEventRecorder(ctx context.Context, client kubernetes.Interface) *cmdutil.EventRecorder {
	return cmdutil.NewEventRecorder(ctx, client, eventComponent)
}
