package controller

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

func claimParameterTemplates(o *Options) { o.ClaimParameterTemplates = true }

// templatedClass feeds claim metadata to the driver, next to a value whose
// '$' is the driver's.
func templatedClass() map[string]string {
	return map[string]string{
		"team":     "${pvc.labels['team']}",
		"owner":    "${pvc.annotations['example.com/owner']}",
		"claim":    "${pvc.namespace}/${pvc.name}",
		"password": "pa$$word-${other}",
	}
}

func labelledClaim() *v1.PersistentVolumeClaim {
	claim := claimCarryingEverything()
	claim.Labels["team"] = "payments"
	claim.Annotations["example.com/owner"] = "alice"
	return claim
}

func TestClaimMetadataReachesTheDriverAsTheClassAsks(t *testing.T) {
	claim := labelledClaim()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, claimParameterTemplates,
		func(o *Options) { o.ExtraCreateMetadata = true })
	if _, _, err := e.provision(t, claim, newClass(templatedClass()), nil); err != nil {
		t.Fatal(err)
	}
	got := e.csi.lastCreate(t).Parameters
	want := map[string]string{
		"team": "payments", "owner": "alice", "claim": testNamespace + "/db", "password": "pa$$word-${other}",
		parameters.PVCNameKey: "db", parameters.PVCNamespaceKey: testNamespace, parameters.PVNameKey: "pvc-" + testClaimUID,
	}
	if len(got) != len(want) {
		t.Errorf("parameters %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("parameter %s = %q, want %q", k, got[k], v)
		}
	}
	updates := e.claimUpdates()
	if len(updates) != 1 {
		t.Fatalf("%d claim writes, want the finalizer and the record in one", len(updates))
	}
	record := updates[0].Annotations[provisionstate.AnnParameterClaimMetadata]
	if record != `{"labels":{"team":"payments"},"annotations":{"example.com/owner":"alice"}}` {
		t.Errorf("record %q: it holds what the parameters read, and nothing else", record)
	}
}

func TestAClassWithoutClaimTokensRecordsNothing(t *testing.T) {
	claim := labelledClaim()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, claimParameterTemplates)
	if _, _, err := e.provision(t, claim, newClass(map[string]string{"tier": "gold", "key": "$x"}), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Parameters; got["tier"] != "gold" || got["key"] != "$x" {
		t.Errorf("parameters %v", got)
	}
	if v, ok := e.apiClaim(t, "db").Annotations[provisionstate.AnnParameterClaimMetadata]; ok {
		t.Errorf("record %q written for a class that reads no claim metadata", v)
	}
}

func TestAMissingLabelFailsBeforeCreateVolumeAndNamesTheKey(t *testing.T) {
	claim := claimCarryingEverything()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, claimParameterTemplates)
	_, state, err := e.provision(t, claim, newClass(templatedClass()), nil)
	if !errors.Is(err, parameters.ErrClaimTemplate) || !strings.Contains(err.Error(), `label "team"`) ||
		!strings.Contains(err.Error(), `annotation "example.com/owner"`) {
		t.Fatalf("err = %v, want every missing key named", err)
	}
	// Retried, as upstream retries a secret template's missing annotation:
	// the claim's author may still add it.
	if state != controller.ProvisioningNoChange {
		t.Errorf("state %s", state)
	}
	if len(e.csi.creates) != 0 || len(e.claimUpdates()) != 0 {
		t.Errorf("%d CreateVolume calls and %d claim writes for a claim that cannot be provisioned", len(e.csi.creates), len(e.claimUpdates()))
	}
}

func TestARetryRendersWithTheMetadataItsProvisioningBeganWith(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
	claim.Labels = map[string]string{"team": "relabelled"}
	claim.Annotations = map[string]string{
		provisionstate.AnnParameterClaimMetadata: `{"labels":{"team":"payments"},"annotations":{"example.com/owner":"alice"}}`,
	}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, claimParameterTemplates)
	if _, _, err := e.provision(t, claim, newClass(templatedClass()), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Parameters; got["team"] != "payments" || got["owner"] != "alice" {
		t.Errorf("parameters %v: a retry asks for what the first attempt asked for", got)
	}
}

func TestAClaimThatBeganWithoutRenderingIsNotRenderedNow(t *testing.T) {
	claim := labelledClaim()
	claim.Finalizers = append(claim.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, claimParameterTemplates)
	if _, _, err := e.provision(t, claim, newClass(templatedClass()), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Parameters["team"]; got != "${pvc.labels['team']}" {
		t.Errorf("team = %q: the first attempt passed the class's value as written", got)
	}
}

// A record must not turn rendering on: a claim's author could write it.
// And a claim that began with rendering is not asked for without it.
func TestARecordWhileRenderingIsOffStopsTheClaim(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Annotations = map[string]string{provisionstate.AnnParameterClaimMetadata: `{"labels":{"team":"payments"}}`}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn)
	_, _, err := e.provision(t, claim, newClass(templatedClass()), nil)
	if err == nil || !strings.Contains(err.Error(), "--claim-parameter-templates") {
		t.Fatalf("err = %v", err)
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("CreateVolume was called")
	}
}

func TestReplayRendersWithTheRecordedMetadata(t *testing.T) {
	claim := deletedClaim()
	claim.Annotations = map[string]string{provisionstate.AnnParameterClaimMetadata: `{"labels":{"team":"payments"}}`}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim},
		classes: []*storagev1.StorageClass{newClass(map[string]string{"team": "${pvc.labels['team']}"})}},
		protectionOn, claimParameterTemplates)
	if _, err := e.prov.ReplayAndDelete(context.Background(), claim); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Parameters["team"]; got != "payments" {
		t.Errorf("team = %q: the replay asks for what the first call asked for", got)
	}
}
