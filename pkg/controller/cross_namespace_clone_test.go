package controller

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

func TestCrossNamespaceCloneNeedsAGrantOfClaims(t *testing.T) {
	grantOf := func(kind string) *gatewayv1beta1.ReferenceGrant {
		return &gatewayv1beta1.ReferenceGrant{
			ObjectMeta: metav1.ObjectMeta{Name: "clones", Namespace: "golden"},
			Spec: gatewayv1beta1.ReferenceGrantSpec{
				From: []gatewayv1beta1.ReferenceGrantFrom{{Group: "", Kind: "PersistentVolumeClaim", Namespace: testNamespace}},
				To:   []gatewayv1beta1.ReferenceGrantTo{{Group: "", Kind: gatewayv1beta1.Kind(kind)}},
			},
		}
	}
	cases := []struct {
		name  string
		grant *gatewayv1beta1.ReferenceGrant
		want  string // "" for a clone
	}{
		{"grant of claims", grantOf("PersistentVolumeClaim"), ""},
		{"grant of snapshots only", grantOf("VolumeSnapshot"), "accessing golden/golden of PersistentVolumeClaim dataSource from apps/copy isn't allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			source, pv, clone := cloneFixture()
			source.Namespace = "golden"
			pv.Spec.ClaimRef.Namespace = "golden"
			clone.Spec.DataSource = nil
			clone.Spec.DataSourceRef = &v1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "golden", Namespace: ptr.To("golden")}
			e := newEnv(t, envObjects{
				claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv},
				grants: []*gatewayv1beta1.ReferenceGrant{tc.grant},
			}, func(o *Options) { o.Features.CrossNamespaceVolumeDataSource = true })
			_, _, err := e.provision(t, clone, newClass(nil), nil)
			if tc.want == "" {
				if err != nil || e.csi.lastCreate(t).GetVolumeContentSource().GetVolume().GetVolumeId() != "golden-handle" {
					t.Fatalf("Provision: %v; want a clone of golden/golden", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(e.csi.creates) != 0 {
				t.Fatalf("Provision: %v after %d CreateVolume calls, want a refusal mentioning %q", err, len(e.csi.creates), tc.want)
			}
		})
	}
}
