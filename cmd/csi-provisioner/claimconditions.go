package main

import (
	"context"
	"fmt"

	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// claimConditionsWorkers is the controller's number of workers: a sync is
// a few cache reads and at most one small patch.
const claimConditionsWorkers = 2

// newDriverErrors is the record of the driver's refusals that the
// provisioner writes and the claim conditions controller reads; nil with
// the gate ClaimConditions off, when nothing is recorded.
func newDriverErrors(cfg *config) *provisionstate.DriverErrors {
	if !cfg.gates.Enabled(features.ClaimConditions) {
		return nil
	}
	return provisionstate.NewDriverErrors(provisionstate.DefaultDriverErrorsKept)
}

// driverErrorRecorder is errs as the provisioner's recorder: a nil
// interface, not an interface holding a nil pointer, when there is none.
func driverErrorRecorder(errs *provisionstate.DriverErrors) controller.DriverErrorRecorder {
	if errs == nil {
		return nil
	}
	return errs
}

// claimConditionsOptions are what newClaimConditions reads.
type claimConditionsOptions struct {
	Config *config
	// Client is the protection client (see kubeClients.protection).
	Client  kubernetes.Interface
	Driver  *csiDriver
	Claims  coreinformers.PersistentVolumeClaimInformer
	Classes storageinformers.StorageClassInformer
	// Calls, DriverErrors and Provisioner are the provisioner's: the
	// CreateVolume calls it tracks, its record of the driver's refusals
	// (nil with the gate off), and its infeasible holds.
	Calls        *provisionstate.Tracker
	DriverErrors *provisionstate.DriverErrors
	Provisioner  *controller.Provisioner
	// Local is this sidecar's node with --node-deployment, else nil.
	Local *localNode
	// Registry receives the controller's metrics, served at zero while
	// the gate is off, as every family is.
	Registry k8smetrics.KubeRegistry
}

// newClaimConditions builds the claim conditions controller, nil unless
// its gate is on: then nothing of it exists, no handler, index or write.
func newClaimConditions(logger klog.Logger, o claimConditionsOptions) (worker, error) {
	cfg := o.Config
	m := claimconditions.NewMetrics()
	if o.Registry != nil {
		m.MustRegisterIn(o.Registry)
	}
	if !cfg.gates.Enabled(features.ClaimConditions) {
		return nil, nil
	}
	logger.Info("Claim conditions are on", "condition", claimconditions.ConditionType)
	ctrl, err := claimconditions.New(claimconditions.Options{
		Client:        o.Client,
		ClaimInformer: o.Claims,
		ClassInformer: o.Classes,
		DriverName:    o.Driver.Name,
		MigratedFrom:  o.Driver.MigratedFrom,
		NodeName:      o.Local.name(),
		Calls:         o.Calls,
		DriverErrors:  o.DriverErrors,
		Holds:         o.Provisioner,
		Settle:        claimconditions.DefaultSettle,
		Metrics:       m,
		RateLimiter:   workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](cfg.retryIntervalStart, cfg.retryIntervalMax),
	})
	if err != nil {
		return nil, fmt.Errorf("creating claim conditions controller: %w", err)
	}
	return func(ctx context.Context) {
		ctrl.Run(ctx, claimConditionsWorkers)
		handOff(ctx, ctrl.HandOff)
	}, nil
}
