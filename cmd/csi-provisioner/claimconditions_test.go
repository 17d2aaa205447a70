package main

import (
	"testing"

	"k8s.io/client-go/informers"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/csiconn"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// buildClaimConditions runs the builder with the gate as asked, and returns
// the worker, the driver errors the provisioner would get, the claim
// informer's indexers and the registry.
func buildClaimConditions(t *testing.T, gateOn bool) (worker, *provisionstate.DriverErrors, []string, k8smetrics.KubeRegistry) {
	t.Helper()
	cfg := newConfig()
	if gateOn {
		if err := cfg.gates.Set("ClaimConditions=true"); err != nil {
			t.Fatal(err)
		}
	}
	client := testutil.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	claims := factory.Core().V1().PersistentVolumeClaims()
	errs := newDriverErrors(cfg)
	registry := k8smetrics.NewKubeRegistry()
	logger, _ := ktesting.NewTestContext(t)
	w, err := newClaimConditions(logger, claimConditionsOptions{
		Config: cfg, Client: client, Driver: &csiDriver{DriverInfo: &csiconn.DriverInfo{Name: "csi.example.com"}},
		Claims: claims, Classes: factory.Storage().V1().StorageClasses(),
		Calls: provisionstate.NewTracker(), DriverErrors: errs, Registry: registry,
	})
	if err != nil {
		t.Fatal(err)
	}
	var indexers []string
	for name := range claims.Informer().GetIndexer().GetIndexers() {
		indexers = append(indexers, name)
	}
	return w, errs, indexers, registry
}

// With the gate off (the default) nothing of the controller exists: no
// worker, no index on the claim cache, no record of driver errors in the
// provisioner (a nil interface, so that it records nothing); its metrics
// are served at zero, as every family is.
func TestClaimConditionsGateOffBuildsNothing(t *testing.T) {
	w, errs, indexers, registry := buildClaimConditions(t, false)
	if w != nil {
		t.Error("a worker was built with the gate off")
	}
	if errs != nil || driverErrorRecorder(errs) != nil {
		t.Error("the provisioner would record driver errors with the gate off")
	}
	for _, name := range indexers {
		if name == "claimconditions-uid" {
			t.Error("the claim cache got the controller's index with the gate off")
		}
	}
	// Served: a second registration of the family is refused.
	if err := registry.Register(claimconditions.NewMetrics().WritesTotal); err == nil {
		t.Error("csi_provisioner_claim_conditions_writes_total is not registered with the gate off")
	}
}

func TestClaimConditionsGateOnBuildsTheController(t *testing.T) {
	w, errs, indexers, _ := buildClaimConditions(t, true)
	if w == nil || errs == nil || driverErrorRecorder(errs) == nil {
		t.Fatalf("worker %v, driver errors %v: want both with the gate on", w != nil, errs != nil)
	}
	found := false
	for _, name := range indexers {
		found = found || name == "claimconditions-uid"
	}
	if !found {
		t.Errorf("claim informer indexers %v, want the controller's", indexers)
	}
}
