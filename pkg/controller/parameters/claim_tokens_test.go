package parameters

import (
	"slices"
	"testing"
)

func TestClaimTokenKeysNameTheParametersThatReadTheClaim(t *testing.T) {
	params := map[string]string{
		"type":               "gp3",
		"tagSpecification_1": "team=${pvc.labels['team']}",
		"tagSpecification_2": "cost=${pvc.annotations['example.com/cost-centre']}",
		"path":               "/exports/${pvc.namespace}/${pvc.name}",
		"volume":             "${pv.name}",
		"typo":               "${pvc.lables['team']}",
		"dollar":             "pa$$word ${HOME} ${other.name}",
		// Reserved keys and the deprecated secret keys are secret
		// templates, upstream's own.
		"csi.storage.k8s.io/provisioner-secret-name": "${pvc.name}",
		"csiProvisionerSecretName":                   "${pvc.name}",
		"csiProvisionerSecretNamespace":              "${pvc.namespace}",
	}
	want := []string{"path", "tagSpecification_1", "tagSpecification_2", "typo", "volume"}
	if got := ClaimTokenKeys(params); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := ClaimTokenKeys(map[string]string{"type": "gp3"}); got != nil {
		t.Errorf("a class without claim tokens: got %q", got)
	}
}
