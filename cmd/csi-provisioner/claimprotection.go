package main

import (
	"context"
	"fmt"

	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/csi-protect/external-provisioner/pkg/claimprotection"
	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/controller/library"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// claimProtectionOptions are what newClaimProtection reads.
type claimProtectionOptions struct {
	Config *config
	// Client is the protection client (see kubeClients.protection).
	Client  kubernetes.Interface
	Claims  coreinformers.PersistentVolumeClaimInformer
	Volumes coreinformers.PersistentVolumeInformer
	// Calls and Provisioner are the provisioner's: the CreateVolume calls
	// it tracks, and what replays an abandoned claim's.
	Calls                  *provisionstate.Tracker
	Provisioner            *controller.Provisioner
	ProvisioningProtection bool
	// Local is this sidecar's node with --node-deployment, else nil.
	Local         *localNode
	EventRecorder record.EventRecorder
	Metrics       *claimprotection.Metrics
}

// newClaimProtection builds the claim protection controller, which always
// runs: it is upstream's cloning protection too.
func newClaimProtection(o claimProtectionOptions) (worker, error) {
	cfg := o.Config
	ctrl, err := claimprotection.New(claimprotection.Options{
		Client:                 o.Client,
		ClaimInformer:          o.Claims,
		VolumeInformer:         o.Volumes,
		Calls:                  o.Calls,
		Replayer:               o.Provisioner,
		ProvisioningProtection: o.ProvisioningProtection,
		NodeName:               o.Local.name(),
		Serves:                 o.Provisioner.ServesClaim,
		EventRecorder:          o.EventRecorder,
		// Built after the provisioning library, which registers it.
		ClaimUIDIndex: library.ClaimUIDIndex,
		Metrics:       o.Metrics,
		// Same back-off as provisioning, as upstream shares one limiter.
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](cfg.retryIntervalStart, cfg.retryIntervalMax),
	})
	if err != nil {
		return nil, fmt.Errorf("creating claim protection controller: %w", err)
	}
	threads := int(cfg.claimProtectionThreads)
	return func(ctx context.Context) {
		ctrl.Run(ctx, threads)
		handOff(ctx, ctrl.HandOff)
	}, nil
}
