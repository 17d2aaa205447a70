package controller

import (
	"testing"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
)

func TestProvisionRecordsControllerModifySecretOnThePV(t *testing.T) {
	e := newEnv(t, envObjects{})
	class := newClass(map[string]string{
		"csi.storage.k8s.io/controller-modify-secret-name":      "modify-${pvc.name}",
		"csi.storage.k8s.io/controller-modify-secret-namespace": "${pvc.namespace}",
		"tier": "gold",
	})
	pv, _, err := e.provision(t, newClaim("db", "1Gi"), class, nil)
	if err != nil {
		t.Fatal(err)
	}
	if name, ns := pv.Annotations[parameters.AnnControllerModifySecretName], pv.Annotations[parameters.AnnControllerModifySecretNamespace]; name != "modify-db" || ns != testNamespace {
		t.Fatalf("modify secret annotations = %q/%q, want modify-db/%s", ns, name, testNamespace)
	}
	params := e.csi.lastCreate(t).Parameters
	if len(params) != 1 || params["tier"] != "gold" {
		t.Fatalf("CreateVolume parameters = %v, want only the driver's own", params)
	}
}

func TestProvisionWithoutModifySecretWritesNoModifyAnnotations(t *testing.T) {
	e := newEnv(t, envObjects{})
	pv, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{parameters.AnnControllerModifySecretName, parameters.AnnControllerModifySecretNamespace} {
		if v, ok := pv.Annotations[key]; ok {
			t.Errorf("PV has %s=%q without a modify secret in the class", key, v)
		}
	}
}

func TestProvisionRefusesHalfAModifySecret(t *testing.T) {
	e := newEnv(t, envObjects{})
	_, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(map[string]string{"csi.storage.k8s.io/controller-modify-secret-name": "modify"}), nil)
	if err == nil {
		t.Fatal("a modify secret name without a namespace was accepted")
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("CreateVolume must not be called with a bad secret reference")
	}
}
