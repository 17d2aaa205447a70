package controller

import (
	"context"

	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
)

// CloningProtectionOptions configure the cloning protection controller.
type CloningProtectionOptions struct {
	Client        kubernetes.Interface
	ClaimInformer coreinformers.PersistentVolumeClaimInformer
	EventRecorder record.EventRecorder
}

// CloningProtectionController removes the cloning-protection finalizer from a
// source claim once no pending clone still reads it.
type CloningProtectionController struct {
	opts CloningProtectionOptions
}

// NewCloningProtectionController is being written.
func NewCloningProtectionController(opts CloningProtectionOptions) *CloningProtectionController {
	return &CloningProtectionController{opts: opts}
}

// Run runs workers until ctx is done.
func (c *CloningProtectionController) Run(ctx context.Context, workers int) {
	<-ctx.Done()
}
