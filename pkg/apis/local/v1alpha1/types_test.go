package v1alpha1

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func int32Ptr(i int32) *int32 { return &i }

// fullLocalVolumeSet sets every field, so that each one shows up on the wire.
func fullLocalVolumeSet() *LocalVolumeSet {
	minSize := resource.MustParse("10Gi")
	maxSize := resource.MustParse("2Ti")
	return &LocalVolumeSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: "LocalVolumeSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "ssds", Namespace: "local-storage", Generation: 2},
		Spec: LocalVolumeSetSpec{
			StorageClassName: "local-ssd",
			VolumeMode:       PersistentVolumeBlock,
			FSType:           "ext4",
			NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"},
				}},
			}}},
			Tolerations:    []corev1.Toleration{{Key: "storage", Operator: corev1.TolerationOpExists}},
			MaxDeviceCount: int32Ptr(4),
			DeviceInclusionSpec: &DeviceInclusionSpec{
				DeviceTypes:                []DeviceType{RawDisk, Partition, Loop, MultiPath},
				DeviceMechanicalProperties: []DeviceMechanicalProperty{NonRotational, Rotational},
				MinSize:                    &minSize,
				MaxSize:                    &maxSize,
				Models:                     []string{"Samsung SSD"},
				Vendors:                    []string{"ATA"},
			},
		},
		Status: LocalVolumeSetStatus{
			Conditions: []metav1.Condition{{
				Type: "Available", Status: metav1.ConditionTrue, Reason: "Provisioned",
				LastTransitionTime: metav1.Unix(1700000000, 0).Rfc3339Copy(),
			}},
			TotalProvisionedDeviceCount: int32Ptr(7),
			ObservedGeneration:          2,
		},
	}
}

func keysAt(t *testing.T, obj map[string]interface{}, path ...string) []string {
	t.Helper()
	var cur interface{} = obj
	for _, p := range path {
		c, ok := cur.(map[string]interface{})
		if !ok {
			t.Fatalf("no object at %v (stopped at %q)", path, p)
		}
		cur = c[p]
	}
	m, ok := cur.(map[string]interface{})
	if !ok {
		t.Fatalf("%v is %T, not an object", path, cur)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestLocalVolumeSetWireNames(t *testing.T) {
	lvs := fullLocalVolumeSet()

	data, err := json.Marshal(lvs)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON map[string]interface{}
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatal(err)
	}
	fromConverter, err := runtime.DefaultUnstructuredConverter.ToUnstructured(lvs)
	if err != nil {
		t.Fatal(err)
	}

	// The names of local-storage-operator's LocalVolumeSet, for the fields we have.
	tests := []struct {
		path []string
		want []string
	}{
		{nil, []string{"apiVersion", "kind", "metadata", "spec", "status"}},
		{[]string{"spec"}, []string{
			"deviceInclusionSpec", "fsType", "maxDeviceCount", "nodeSelector", "storageClassName", "tolerations", "volumeMode",
		}},
		{[]string{"spec", "deviceInclusionSpec"}, []string{
			"deviceMechanicalProperties", "deviceTypes", "maxSize", "minSize", "models", "vendors",
		}},
		{[]string{"status"}, []string{"conditions", "observedGeneration", "totalProvisionedDeviceCount"}},
	}
	for name, obj := range map[string]map[string]interface{}{"json": fromJSON, "unstructured": fromConverter} {
		for _, tc := range tests {
			if got := keysAt(t, obj, tc.path...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: keys at %v = %v, want %v", name, tc.path, got, tc.want)
			}
		}
		inclusion := obj["spec"].(map[string]interface{})["deviceInclusionSpec"].(map[string]interface{})
		if got, want := inclusion["deviceTypes"], []interface{}{"disk", "part", "loop", "mpath"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: deviceTypes = %#v, want %#v", name, got, want)
		}
		if got, want := inclusion["deviceMechanicalProperties"], []interface{}{"NonRotational", "Rotational"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: deviceMechanicalProperties = %#v, want %#v", name, got, want)
		}
		if got, want := inclusion["minSize"], "10Gi"; got != want {
			t.Errorf("%s: minSize = %#v, want %q", name, got, want)
		}
		if got, want := obj["spec"].(map[string]interface{})["volumeMode"], "Block"; got != want {
			t.Errorf("%s: volumeMode = %#v, want %q", name, got, want)
		}
	}
}

func TestLocalVolumeSetOmitsUnsetOptionalFields(t *testing.T) {
	lvs := &LocalVolumeSet{Spec: LocalVolumeSetSpec{StorageClassName: "local-ssd"}}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(lvs)
	if err != nil {
		t.Fatal(err)
	}
	// volumeMode is left out so that the CRD default (Filesystem) applies.
	if got, want := keysAt(t, u, "spec"), []string{"storageClassName"}; !reflect.DeepEqual(got, want) {
		t.Errorf("spec keys = %v, want %v", got, want)
	}
	if got := keysAt(t, u, "status"); len(got) != 0 {
		t.Errorf("status keys = %v, want none", got)
	}
}

func TestLocalVolumeSetRoundTrip(t *testing.T) {
	lvs := fullLocalVolumeSet()

	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(lvs)
	if err != nil {
		t.Fatal(err)
	}
	viaUnstructured := &LocalVolumeSet{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, viaUnstructured); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(lvs, viaUnstructured) {
		t.Errorf("unstructured round trip changed the object:\n got %#v\nwant %#v", viaUnstructured, lvs)
	}

	data, err := json.Marshal(lvs)
	if err != nil {
		t.Fatal(err)
	}
	viaJSON := &LocalVolumeSet{}
	if err := json.Unmarshal(data, viaJSON); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(lvs, viaJSON) {
		t.Errorf("JSON round trip changed the object:\n got %#v\nwant %#v", viaJSON, lvs)
	}
}

func TestLocalVolumeSetDeepCopy(t *testing.T) {
	lvs := fullLocalVolumeSet()
	cp := lvs.DeepCopyObject().(*LocalVolumeSet)
	if !apiequality.Semantic.DeepEqual(lvs, cp) {
		t.Fatalf("copy differs from original")
	}
	*cp.Spec.MaxDeviceCount = 9
	cp.Spec.DeviceInclusionSpec.DeviceTypes[0] = Loop
	cp.Spec.DeviceInclusionSpec.MinSize.Set(1)
	*cp.Status.TotalProvisionedDeviceCount = 0
	if *lvs.Spec.MaxDeviceCount != 4 || lvs.Spec.DeviceInclusionSpec.DeviceTypes[0] != RawDisk ||
		lvs.Spec.DeviceInclusionSpec.MinSize.String() != "10Gi" || *lvs.Status.TotalProvisionedDeviceCount != 7 {
		t.Errorf("changing the copy changed the original")
	}

	list := &LocalVolumeSetList{Items: []LocalVolumeSet{*lvs}}
	listCopy := list.DeepCopyObject().(*LocalVolumeSetList)
	listCopy.Items[0].Spec.StorageClassName = "other"
	if list.Items[0].Spec.StorageClassName != "local-ssd" {
		t.Errorf("changing the list copy changed the original")
	}
}

func TestAddToScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for kind, obj := range map[string]runtime.Object{"LocalVolumeSet": &LocalVolumeSet{}, "LocalVolumeSetList": &LocalVolumeSetList{}} {
		want := schema.GroupVersionKind{Group: "local.storage.openshift.io", Version: "v1alpha1", Kind: kind}
		gvks, _, err := scheme.ObjectKinds(obj)
		if err != nil {
			t.Errorf("%s: %v", kind, err)
			continue
		}
		if len(gvks) != 1 || gvks[0] != want {
			t.Errorf("%s registered as %v, want %v", kind, gvks, want)
		}
		if _, err := scheme.New(want); err != nil {
			t.Errorf("scheme.New(%v): %v", want, err)
		}
	}
	if got, want := Resource("localvolumesets"), (schema.GroupResource{Group: "local.storage.openshift.io", Resource: "localvolumesets"}); got != want {
		t.Errorf("Resource() = %v, want %v", got, want)
	}
}
