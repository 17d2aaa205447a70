package finalizer

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// fullVolume is a bound PV with everything a cluster may put on one, so
// that a write that changes more than it means to shows.
func fullVolume() *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name: "pv-1", UID: "uid-pv-1",
			Annotations: map[string]string{
				"pv.kubernetes.io/provisioned-by":                  "csi.example.com",
				"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"PersistentVolume"}`,
				"example.com/owner":                                "team-a",
				"example.com/stale":                                "x",
			},
			Labels:     map[string]string{"app": "db", "old": "x"},
			Finalizers: []string{"kubernetes.io/pv-protection", "example.com/gone", "external-provisioner.volume.kubernetes.io/finalizer"},
		},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteMany},
			ClaimRef:                      &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: "apps", Name: "data", UID: "uid-claim"},
			StorageClassName:              "fast",
			VolumeMode:                    ptr.To(v1.PersistentVolumeBlock),
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "csi.example.com", VolumeHandle: "vol-1",
				VolumeAttributes:          map[string]string{"pool": "ssd"},
				NodeStageSecretRef:        &v1.SecretReference{Name: "stage", Namespace: "kube-system"},
				ControllerExpandSecretRef: &v1.SecretReference{Name: "expand", Namespace: "kube-system"},
			}},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}},
			}}}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound, Message: "bound"},
	}
}

// fullClaim is a bound claim with everything a cluster may put on one.
func fullClaim() *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: "data", Namespace: "apps", UID: "uid-claim",
			Annotations: map[string]string{
				"volume.kubernetes.io/storage-provisioner":         "csi.example.com",
				"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"PersistentVolumeClaim"}`,
				"example.com/stale":                                "x",
			},
			Labels:     map[string]string{"app": "db", "old": "x"},
			Finalizers: []string{"kubernetes.io/pvc-protection", "example.com/gone"},
		},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")}},
			StorageClassName: ptr.To("fast"),
			VolumeName:       "pv-1",
			VolumeMode:       ptr.To(v1.PersistentVolumeFilesystem),
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:       v1.ClaimBound,
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity:    v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
			Conditions:  []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue}},
		},
	}
}

// everyMetadataChange adds and removes a finalizer, an annotation and a
// label in one write.
var everyMetadataChange = Change{
	Add: []string{"mine"}, Remove: []string{"example.com/gone"},
	SetAnnotations: map[string]string{"marker": "on"}, RemoveAnnotations: []string{"example.com/stale"},
	SetLabels: map[string]string{"kept": "true"}, RemoveLabels: []string{"old"},
}

// expectMetadataChanged checks that after is before with everyMetadataChange
// made and a new version, and nothing else changed (but the fake's record of
// who wrote which field).
func expectMetadataChanged(t *testing.T, before, after Object) {
	t.Helper()
	want := before.DeepCopyObject().(Object)
	finalizers := slices.DeleteFunc(slices.Clone(want.GetFinalizers()), func(f string) bool { return f == "example.com/gone" })
	want.SetFinalizers(append(finalizers, "mine"))
	annotations := want.GetAnnotations()
	delete(annotations, "example.com/stale")
	annotations["marker"] = "on"
	labels := want.GetLabels()
	delete(labels, "old")
	labels["kept"] = "true"
	if after.GetResourceVersion() == before.GetResourceVersion() {
		t.Errorf("resourceVersion %s did not change", after.GetResourceVersion())
	}
	want.SetResourceVersion(after.GetResourceVersion())
	want.SetManagedFields(nil)
	got := after.DeepCopyObject().(Object)
	got.SetManagedFields(nil)
	if !equality.Semantic.DeepEqual(want, got) {
		t.Errorf("the write changed more, or less, than it meant to:\n%s", diff.Diff(want, got))
	}
}

// writesOf lists the write requests client got, as verb and patch type.
func writesOf(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		switch a := a.(type) {
		case k8stesting.PatchActionImpl:
			out = append(out, "patch "+string(a.PatchType)+" "+a.Subresource)
		case k8stesting.UpdateActionImpl:
			out = append(out, "update "+a.Subresource)
		}
	}
	return out
}

// A PV's finalizer, annotation, label and spec change in one merge patch
// of the PV; the rest of it, spec.csi and the status included, stays.
func TestAVolumeWriteChangesOnlyWhatItMeans(t *testing.T) {
	client := testutil.NewClientset(fullVolume())
	before := testutil.PV(t, client, "pv-1")
	client.ClearActions()
	c := everyMetadataChange
	c.Spec = map[string]any{"persistentVolumeReclaimPolicy": "Retain"}
	if wrote, err := Write(context.Background(), PersistentVolumes(client), before, c); err != nil || !wrote {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
	after := testutil.PV(t, client, "pv-1")
	if got := writesOf(client); len(got) != 1 || got[0] != "patch "+string(types.MergePatchType)+" " {
		t.Errorf("writes %q; want one merge patch of the PV", got)
	}
	if after.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimRetain {
		t.Errorf("reclaim policy %s, want Retain", after.Spec.PersistentVolumeReclaimPolicy)
	}
	withPolicy := before.DeepCopy()
	withPolicy.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	expectMetadataChanged(t, withPolicy, after)
}

// A claim's finalizer, annotation and label change in one update of a copy
// of the version decided on (upstream's RBAC grants no patch on claims);
// its spec and status stay.
func TestAClaimWriteChangesOnlyWhatItMeans(t *testing.T) {
	client := testutil.NewClientset(fullClaim())
	before, err := client.CoreV1().PersistentVolumeClaims("apps").Get(context.Background(), "data", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	if wrote, err := Write(context.Background(), PersistentVolumeClaims(client), before, everyMetadataChange); err != nil || !wrote {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
	after, err := client.CoreV1().PersistentVolumeClaims("apps").Get(context.Background(), "data", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := writesOf(client); len(got) != 1 || got[0] != "update " {
		t.Errorf("writes %q; want one update of the claim", got)
	}
	expectMetadataChanged(t, before, after)
}
