package reconcile

import (
	"context"
	"testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile/reconciletest"
)

func TestQueueNameNamesTheQueueMetrics(t *testing.T) {
	names := reconciletest.RecordQueueNames(t)
	sync := func(context.Context, string) (Result, error) { return Done, nil }

	if _, err := New(Options[string]{Name: "own-name", Sync: sync}); err != nil {
		t.Fatal(err)
	}
	if !names.Created("own-name") {
		t.Error("without QueueName the queue must carry Name")
	}

	if _, err := New(Options[string]{Name: "logger-name", QueueName: "upstreamqueue", Sync: sync}); err != nil {
		t.Fatal(err)
	}
	if !names.Created("upstreamqueue") || names.Created("logger-name") {
		t.Error("with QueueName the queue must carry it, not Name")
	}
}
