package provisionstate

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestProvisioningNodePrefersTheRecordedNode(t *testing.T) {
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnSelectedNode: "b"}}}
	if got := ProvisioningNode(claim); got != "b" {
		t.Errorf("with only a selected node: %q, want b", got)
	}
	claim.Annotations[AnnProvisioningNode] = "a"
	if got := ProvisioningNode(claim); got != "a" {
		t.Errorf("with a recorded node: %q, want a", got)
	}
	if got := ProvisioningNode(&v1.PersistentVolumeClaim{}); got != "" {
		t.Errorf("with neither: %q, want none", got)
	}
}
