package controller

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
)

func secretClass() map[string]string {
	return map[string]string{
		"csi.storage.k8s.io/provisioner-secret-name":             "${pvc.name}-creds",
		"csi.storage.k8s.io/provisioner-secret-namespace":        "${pvc.namespace}",
		"csi.storage.k8s.io/controller-publish-secret-name":      "publish",
		"csi.storage.k8s.io/controller-publish-secret-namespace": "vault",
		"csi.storage.k8s.io/node-stage-secret-name":              "${pvc.annotations['team.example.com/stage-secret']}",
		"csi.storage.k8s.io/node-stage-secret-namespace":         "${pvc.namespace}",
		"csi.storage.k8s.io/node-publish-secret-name":            "node-${pv.name}",
		"csi.storage.k8s.io/node-publish-secret-namespace":       "vault",
		"csi.storage.k8s.io/controller-expand-secret-name":       "expand",
		"csi.storage.k8s.io/controller-expand-secret-namespace":  "vault",
		"csi.storage.k8s.io/node-expand-secret-name":             "node-expand",
		"csi.storage.k8s.io/node-expand-secret-namespace":        "vault",
	}
}

func TestProvisionPassesProvisionerSecretAndRecordsAllSix(t *testing.T) {
	e := newEnv(t, envObjects{secrets: []*v1.Secret{testutil.NewSecret(testNamespace, "db-creds", map[string]string{"password": "s3cret"})}})
	claim := newClaim("db", "1Gi")
	claim.Annotations = map[string]string{"team.example.com/stage-secret": "stage-key"}
	pv, _, err := e.provision(t, claim, newClass(secretClass()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).Secrets; got["password"] != "s3cret" || len(got) != 1 {
		t.Fatalf("CreateVolume secrets = %v, want the provisioner secret's data", got)
	}
	src := pv.Spec.CSI
	want := map[string]*v1.SecretReference{
		"controller-publish": {Name: "publish", Namespace: "vault"},
		"node-stage":         {Name: "stage-key", Namespace: testNamespace},
		"node-publish":       {Name: "node-pvc-" + testClaimUID, Namespace: "vault"},
		"controller-expand":  {Name: "expand", Namespace: "vault"},
		"node-expand":        {Name: "node-expand", Namespace: "vault"},
	}
	got := map[string]*v1.SecretReference{
		"controller-publish": src.ControllerPublishSecretRef,
		"node-stage":         src.NodeStageSecretRef,
		"node-publish":       src.NodePublishSecretRef,
		"controller-expand":  src.ControllerExpandSecretRef,
		"node-expand":        src.NodeExpandSecretRef,
	}
	for kind, w := range want {
		if g := got[kind]; g == nil || *g != *w {
			t.Errorf("%s secret ref = %v, want %v", kind, g, w)
		}
	}
	if pv.Annotations[parameters.AnnDeletionSecretName] != "db-creds" || pv.Annotations[parameters.AnnDeletionSecretNamespace] != testNamespace {
		t.Fatalf("deletion secret annotations = %v", pv.Annotations)
	}
}

func TestProvisionReportsMissingProvisionerSecret(t *testing.T) {
	e := newEnv(t, envObjects{})
	claim := newClaim("db", "1Gi")
	claim.Annotations = map[string]string{"team.example.com/stage-secret": "stage-key"}
	_, _, err := e.provision(t, claim, newClass(secretClass()), nil)
	// Upstream v6.3.0's text (getCredentials).
	if want := `error getting secret db-creds in namespace apps: secrets "db-creds" not found`; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("CreateVolume must wait for the secret")
	}
}

func TestProvisionReportsMalformedSecretReference(t *testing.T) {
	// Upstream v6.3.0's texts (getSecretReference and what it calls).
	cases := []struct {
		name   string
		params map[string]string
		want   string
	}{
		{"name without namespace", map[string]string{"csi.storage.k8s.io/provisioner-secret-name": "creds"},
			"failed to get name and namespace template from params: either name and namespace for Provisioner secrets specified, Both must be specified"},
		{"unknown token", map[string]string{"csi.storage.k8s.io/node-publish-secret-name": "${pvc.uid}", "csi.storage.k8s.io/node-publish-secret-namespace": "vault"},
			`error resolving value "${pvc.uid}": invalid tokens: ["pvc.uid"]`},
		{"missing annotation", map[string]string{
			"csi.storage.k8s.io/node-stage-secret-name":      "${pvc.annotations['absent']}",
			"csi.storage.k8s.io/node-stage-secret-namespace": "vault",
		}, `error resolving value "${pvc.annotations['absent']}": invalid tokens: ["pvc.annotations['absent']"]`},
		{"invalid resolved name", map[string]string{"csi.storage.k8s.io/node-expand-secret-name": "Bad_Name", "csi.storage.k8s.io/node-expand-secret-namespace": "vault"},
			`"Bad_Name" is not a valid secret name`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envObjects{})
			_, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(tc.params), nil)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if len(e.csi.creates) != 0 {
				t.Fatal("CreateVolume must not be called with a bad secret reference")
			}
		})
	}
}
