package controller

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

const (
	readableTemplate = "{{.Namespace}}-{{.Name}}-{{.UIDShort}}"
	// readableName is readableTemplate's name of newClaim("db", …).
	readableName  = testNamespace + "-db-0b6d5fa4"
	otherTemplate = "{{.Prefix}}-{{.UID}}"
)

func withNameTemplate(tmpl string) func(*Options) {
	return func(o *Options) {
		o.VolumeNameTemplate = tmpl
		o.VolumeNameMaxLength = volumename.DefaultMaxLength
	}
}

// recordOf is the record a claim keeps of tmpl with the test's settings.
func recordOf(t *testing.T, tmpl string) string {
	t.Helper()
	n, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: -1, Template: tmpl, MaxLength: volumename.DefaultMaxLength})
	if err != nil {
		t.Fatal(err)
	}
	return n.Current().Record()
}

// claimCarryingEverything is a claim applied with kubectl, with another
// controller's finalizer and labels: a write must keep all of it.
func claimCarryingEverything() *v1.PersistentVolumeClaim {
	claim := newClaim("db", "1Gi")
	claim.Labels = map[string]string{"app": "db"}
	claim.Annotations = map[string]string{v1.LastAppliedConfigAnnotation: `{"kind":"PersistentVolumeClaim"}`}
	claim.Finalizers = []string{"example.com/backup"}
	return claim
}

func TestWithoutATemplateTheDriverGetsThePVName(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, func(o *Options) { o.ExtraCreateMetadata = true })
	pv, _, err := e.provision(t, claim, newClass(map[string]string{"path": "${pvc.name}"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	req := e.csi.lastCreate(t)
	if req.Name != "pvc-"+testClaimUID || pv.Name != req.Name {
		t.Fatalf("CreateVolume name %q, PV %q: both must be pvc-<UID>, as upstream", req.Name, pv.Name)
	}
	if req.Parameters["path"] != "${pvc.name}" {
		t.Fatalf("parameter path = %q: without --claim-parameter-templates it goes as the class wrote it", req.Parameters["path"])
	}
	stored := e.apiClaim(t, "db")
	for _, key := range []string{provisionstate.AnnVolumeNameTemplate, provisionstate.AnnParameterClaimMetadata} {
		if v, ok := stored.Annotations[key]; ok {
			t.Errorf("annotation %s=%q written without the setting it records", key, v)
		}
	}
}

func TestTemplateNamesTheDriversVolumeAndThePVKeepsItsName(t *testing.T) {
	claim := claimCarryingEverything()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, withNameTemplate(readableTemplate),
		func(o *Options) { o.ExtraCreateMetadata = true })
	class := newClass(map[string]string{
		parameters.Provisioner.NameKey(): "${pv.name}", parameters.Provisioner.NamespaceKey(): testNamespace,
	})
	e.client.Tracker().Add(testutil.NewSecret(testNamespace, "pvc-"+testClaimUID, map[string]string{"k": "v"}))
	pv, _, err := e.provision(t, claim, class, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := e.csi.lastCreate(t)
	if req.Name != readableName {
		t.Errorf("CreateVolume name %q, want %q", req.Name, readableName)
	}
	if pv.Name != "pvc-"+testClaimUID || pv.Spec.CSI.VolumeHandle != "handle-"+readableName {
		t.Errorf("PV %q with handle %q: the PV keeps pvc-<UID>, the handle is the driver's", pv.Name, pv.Spec.CSI.VolumeHandle)
	}
	if got := req.Parameters[parameters.PVNameKey]; got != pv.Name {
		t.Errorf("%s = %q: the extra metadata names the PV, %q", parameters.PVNameKey, got, pv.Name)
	}
	if len(req.Secrets) == 0 {
		t.Error("${pv.name} in a secret template must still be the PV's name: the secret was not found")
	}

	updates := e.claimUpdates()
	if len(updates) != 1 {
		t.Fatalf("%d claim writes, want the finalizer and the record in one", len(updates))
	}
	written := updates[0]
	if !finalizer.Has(written, provisionstate.ProvisioningProtectionFinalizer) ||
		written.Annotations[provisionstate.AnnVolumeNameTemplate] != recordOf(t, readableTemplate) {
		t.Fatalf("write has finalizers %v and annotations %v: the finalizer and the record go together", written.Finalizers, written.Annotations)
	}
	if !finalizer.Has(written, "example.com/backup") || written.Labels["app"] != "db" ||
		written.Annotations[v1.LastAppliedConfigAnnotation] == "" {
		t.Errorf("the write dropped what it does not own: %+v", written.ObjectMeta)
	}
}

func TestARetryKeepsTheNameItsProvisioningBeganWith(t *testing.T) {
	for name, tc := range map[string]struct {
		record   string // "" for none
		settings string
		want     string
	}{
		"template changed since":          {record: recordOf(t, readableTemplate), settings: otherTemplate, want: readableName},
		"template removed since":          {record: recordOf(t, readableTemplate), settings: "", want: readableName},
		"began without, template set now": {settings: readableTemplate, want: "pvc-" + testClaimUID},
	} {
		t.Run(name, func(t *testing.T) {
			claim := newClaim("db", "1Gi")
			claim.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
			if tc.record != "" {
				claim.Annotations = map[string]string{provisionstate.AnnVolumeNameTemplate: tc.record}
			}
			e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, withNameTemplate(tc.settings))
			if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
				t.Fatal(err)
			}
			if got := e.csi.lastCreate(t).Name; got != tc.want {
				t.Errorf("CreateVolume name %q, want %q", got, tc.want)
			}
			if got := e.apiClaim(t, "db").Annotations[provisionstate.AnnVolumeNameTemplate]; got != tc.record {
				t.Errorf("record %q, want it unchanged (%q)", got, tc.record)
			}
		})
	}
}

func TestReplayAsksForTheRecordedNameAfterTheTemplateChanged(t *testing.T) {
	claim := deletedClaim()
	claim.Annotations = map[string]string{provisionstate.AnnVolumeNameTemplate: recordOf(t, readableTemplate)}
	e := replayEnv(t, claim, withNameTemplate(otherTemplate))
	done, err := e.prov.ReplayAndDelete(context.Background(), claim)
	if err != nil || !done {
		t.Fatalf("done %v, err %v", done, err)
	}
	if len(e.csi.creates) != 1 || e.csi.creates[0].Name != readableName {
		t.Fatalf("creates %v, want one CreateVolume for %s", e.csi.creates, readableName)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-"+readableName {
		t.Fatalf("deletes %v, want the volume made under the old template", e.csi.deletes)
	}
}

func TestReplayOfAClaimThatBeganWithoutATemplateUsesThePVName(t *testing.T) {
	claim := deletedClaim()
	e := replayEnv(t, claim, withNameTemplate(readableTemplate))
	if _, err := e.prov.ReplayAndDelete(context.Background(), claim); err != nil {
		t.Fatal(err)
	}
	if len(e.csi.creates) != 1 || e.csi.creates[0].Name != "pvc-"+testClaimUID {
		t.Fatalf("creates %v, want the name the claim began with", e.csi.creates)
	}
}

func TestARecordThatCouldNameAnotherClaimsVolumeIsRefused(t *testing.T) {
	for name, record := range map[string]string{
		"no UID":        `{"template":"{{.Namespace}}-{{.Name}}","prefix":"pvc","maxLength":63}`,
		"fixed name":    `{"template":"pvc-3f1c9a2b-0000-4000-8000-000000000000","prefix":"pvc","maxLength":63}`,
		"not JSON":      "pvc-" + testClaimUID,
		"unknown field": `{"template":"{{.UID}}","prefix":"pvc","maxLength":63,"name":"x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			claim := newClaim("db", "1Gi")
			claim.Annotations = map[string]string{provisionstate.AnnVolumeNameTemplate: record}
			e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn)
			_, _, err := e.provision(t, claim, newClass(nil), nil)
			if err == nil || !strings.Contains(err.Error(), provisionstate.AnnVolumeNameTemplate) {
				t.Fatalf("err = %v, want the record refused by name", err)
			}
			if len(e.csi.creates) != 0 {
				t.Fatalf("CreateVolume %q was called", e.csi.creates[0].Name)
			}
		})
	}
}

// The library's copy of a claim can be older than the cache's: it may not
// show the finalizer and the record another attempt wrote. A request made
// from it would ask for another name, so it is not sent.
func TestARequestPreparedFromAnOlderCopyIsNotSent(t *testing.T) {
	cached := newClaim("db", "1Gi")
	cached.ResourceVersion = "2"
	cached.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
	libraryCopy := newClaim("db", "1Gi")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{cached}}, protectionOn, withNameTemplate(readableTemplate))
	_, _, err := e.provision(t, libraryCopy, newClass(nil), nil)
	if err == nil || !strings.Contains(err.Error(), "records another") {
		t.Fatalf("err = %v, want the attempt refused", err)
	}
	if len(e.csi.creates) != 0 {
		t.Fatalf("CreateVolume %q was called", e.csi.creates[0].Name)
	}
	if _, _, err := e.provision(t, cached, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Name; got != "pvc-"+testClaimUID {
		t.Fatalf("CreateVolume name %q: the claim began without a template", got)
	}
}

func TestDriverVolumeNameIsWhatProvisioningAsksFor(t *testing.T) {
	e := newEnv(t, envObjects{}, withNameTemplate(readableTemplate))
	claim := newClaim("db", "1Gi")
	if got, err := e.prov.DriverVolumeName(claim); err != nil || got != readableName {
		t.Fatalf("DriverVolumeName = %q, %v; want %q", got, err, readableName)
	}
	claim.Annotations = map[string]string{provisionstate.AnnVolumeNameTemplate: recordOf(t, otherTemplate)}
	if got, err := e.prov.DriverVolumeName(claim); err != nil || got != "pvc-"+testClaimUID {
		t.Fatalf("DriverVolumeName = %q, %v; want the recorded template's name", got, err)
	}
	if got, err := e.prov.PVName(claim); err != nil || got != "pvc-"+testClaimUID {
		t.Fatalf("PVName = %q, %v", got, err)
	}
}

// A sidecar of node deployment names volumes as a central one: the
// finalizer, the node and the name template go in one write, and the
// replay on that node asks for the recorded name.
func TestNodeDeploymentRecordsTheNameTemplateWithTheNode(t *testing.T) {
	claim := claimOn(ownNode)
	class := classWith(storagev1.VolumeBindingWaitForFirstConsumer)
	e := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{class}},
		protectionOn, withNameTemplate(readableTemplate))
	if _, _, err := e.provision(t, claim, class, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Name; got != readableName {
		t.Errorf("CreateVolume name %q, want %q", got, readableName)
	}
	updates := e.claimUpdates()
	if len(updates) != 1 {
		t.Fatalf("%d claim writes, want one", len(updates))
	}
	if a := updates[0].Annotations; a[provisionstate.AnnProvisioningNode] != ownNode || a[provisionstate.AnnVolumeNameTemplate] != recordOf(t, readableTemplate) {
		t.Errorf("annotations %v: node and name template go with the finalizer", a)
	}

	deleted := deletedClaim()
	deleted.Annotations = map[string]string{
		provisionstate.AnnProvisioningNode:   ownNode,
		provisionstate.AnnVolumeNameTemplate: recordOf(t, readableTemplate),
	}
	r := newNodeEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{deleted}, classes: []*storagev1.StorageClass{newClass(nil)}}, protectionOn)
	if done, err := r.prov.ReplayAndDelete(context.Background(), deleted); !done || err != nil {
		t.Fatalf("done %v, err %v", done, err)
	}
	if got := r.csi.lastCreate(t).Name; got != readableName {
		t.Errorf("replayed CreateVolume name %q, want %q", got, readableName)
	}
}
