package main

import (
	"testing"

	"github.com/csi-protect/external-provisioner/pkg/adaptive"
)

func TestAdaptiveConcurrencyWrapsTheDriverClientOnlyWhenAsked(t *testing.T) {
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, wrapped := driverClient(cfg, &csiDriver{}, nil).(adaptive.Client); wrapped {
		t.Error("without --adaptive-concurrency the provisioner's calls are bounded by its workers alone, as upstream's")
	}
	cfg, err = parseFlags([]string{"--adaptive-concurrency", "--worker-threads=7"})
	if err != nil {
		t.Fatal(err)
	}
	m := adaptive.NewMetrics()
	client, wrapped := driverClient(cfg, &csiDriver{}, m).(adaptive.Client)
	if !wrapped {
		t.Fatal("--adaptive-concurrency does not bound the driver's calls")
	}
	if got := client.Limiter.Limit(); got != 7 {
		t.Errorf("bound starts at %d, want --worker-threads (7)", got)
	}
}
