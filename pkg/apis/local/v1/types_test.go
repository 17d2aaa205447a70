package v1

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fullLocalVolume sets every field, so that each one shows up on the wire.
func fullLocalVolume() *LocalVolume {
	return &LocalVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: "LocalVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: "disks", Namespace: "local-storage", Generation: 3},
		Spec: LocalVolumeSpec{
			NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"},
				}},
			}}},
			Tolerations: []corev1.Toleration{{Key: "storage", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			StorageClassDevices: []StorageClassDevice{{
				StorageClassName:                  "local-sc",
				VolumeMode:                        PersistentVolumeFilesystem,
				FSType:                            "xfs",
				DevicePaths:                       []string{"/dev/sdb", "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
				ForceWipeDevicesAndDestroyAllData: true,
			}},
		},
		Status: LocalVolumeStatus{
			Conditions: []metav1.Condition{{
				Type: "Available", Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "ok",
				ObservedGeneration: 3, LastTransitionTime: metav1.Unix(1700000000, 0).Rfc3339Copy(),
			}},
			ObservedGeneration: 3,
		},
	}
}

// keysAt returns the sorted keys of the JSON object found at path in obj.
func keysAt(t *testing.T, obj map[string]interface{}, path ...string) []string {
	t.Helper()
	var cur interface{} = obj
	for _, p := range path {
		switch c := cur.(type) {
		case map[string]interface{}:
			cur = c[p]
		case []interface{}:
			if len(c) == 0 {
				t.Fatalf("empty list at %v", path)
			}
			cur = c[0] // "0" steps into the first item
		default:
			t.Fatalf("no object at %v (stopped at %q)", path, p)
		}
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

func TestLocalVolumeWireNames(t *testing.T) {
	lv := fullLocalVolume()

	data, err := json.Marshal(lv)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON map[string]interface{}
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatal(err)
	}
	fromConverter, err := runtime.DefaultUnstructuredConverter.ToUnstructured(lv)
	if err != nil {
		t.Fatal(err)
	}

	// The names of local-storage-operator's LocalVolume, for the fields we have.
	tests := []struct {
		path []string
		want []string
	}{
		{nil, []string{"apiVersion", "kind", "metadata", "spec", "status"}},
		{[]string{"spec"}, []string{"nodeSelector", "storageClassDevices", "tolerations"}},
		{[]string{"spec", "storageClassDevices", "0"}, []string{
			"devicePaths", "forceWipeDevicesAndDestroyAllData", "fsType", "storageClassName", "volumeMode",
		}},
		{[]string{"status"}, []string{"conditions", "observedGeneration"}},
	}
	for name, obj := range map[string]map[string]interface{}{"json": fromJSON, "unstructured": fromConverter} {
		for _, tc := range tests {
			if got := keysAt(t, obj, tc.path...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: keys at %v = %v, want %v", name, tc.path, got, tc.want)
			}
		}
	}
	if got := fromJSON["spec"].(map[string]interface{})["storageClassDevices"].([]interface{})[0].(map[string]interface{})["volumeMode"]; got != "Filesystem" {
		t.Errorf("volumeMode on the wire = %v, want Filesystem", got)
	}
}

func TestLocalVolumeOmitsUnsetOptionalFields(t *testing.T) {
	lv := &LocalVolume{Spec: LocalVolumeSpec{StorageClassDevices: []StorageClassDevice{{
		StorageClassName: "local-sc", DevicePaths: []string{"/dev/sdb"},
	}}}}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(lv)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysAt(t, u, "spec"), []string{"storageClassDevices"}; !reflect.DeepEqual(got, want) {
		t.Errorf("spec keys = %v, want %v", got, want)
	}
	// volumeMode is left out so that the CRD default (Filesystem) applies.
	if got, want := keysAt(t, u, "spec", "storageClassDevices", "0"), []string{"devicePaths", "storageClassName"}; !reflect.DeepEqual(got, want) {
		t.Errorf("storageClassDevices[0] keys = %v, want %v", got, want)
	}
}

func TestLocalVolumeRoundTrip(t *testing.T) {
	lv := fullLocalVolume()

	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(lv)
	if err != nil {
		t.Fatal(err)
	}
	viaUnstructured := &LocalVolume{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, viaUnstructured); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(lv, viaUnstructured) {
		t.Errorf("unstructured round trip changed the object:\n got %#v\nwant %#v", viaUnstructured, lv)
	}

	data, err := json.Marshal(lv)
	if err != nil {
		t.Fatal(err)
	}
	viaJSON := &LocalVolume{}
	if err := json.Unmarshal(data, viaJSON); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(lv, viaJSON) {
		t.Errorf("JSON round trip changed the object:\n got %#v\nwant %#v", viaJSON, lv)
	}
}

func TestLocalVolumeDeepCopy(t *testing.T) {
	lv := fullLocalVolume()
	cp := lv.DeepCopyObject().(*LocalVolume)
	if !apiequality.Semantic.DeepEqual(lv, cp) {
		t.Fatalf("copy differs from original")
	}
	cp.Spec.StorageClassDevices[0].DevicePaths[0] = "/dev/sdz"
	cp.Spec.NodeSelector.NodeSelectorTerms[0].MatchExpressions[0].Values[0] = "node-2"
	cp.Status.Conditions[0].Status = metav1.ConditionFalse
	if lv.Spec.StorageClassDevices[0].DevicePaths[0] != "/dev/sdb" ||
		lv.Spec.NodeSelector.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != "node-1" ||
		lv.Status.Conditions[0].Status != metav1.ConditionTrue {
		t.Errorf("changing the copy changed the original")
	}

	list := &LocalVolumeList{Items: []LocalVolume{*lv}}
	listCopy := list.DeepCopyObject().(*LocalVolumeList)
	listCopy.Items[0].Spec.StorageClassDevices[0].StorageClassName = "other"
	if list.Items[0].Spec.StorageClassDevices[0].StorageClassName != "local-sc" {
		t.Errorf("changing the list copy changed the original")
	}
}

func TestAddToScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for kind, obj := range map[string]runtime.Object{"LocalVolume": &LocalVolume{}, "LocalVolumeList": &LocalVolumeList{}} {
		want := schema.GroupVersionKind{Group: "local.storage.openshift.io", Version: "v1", Kind: kind}
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
	if got, want := Resource("localvolumes"), (schema.GroupResource{Group: "local.storage.openshift.io", Resource: "localvolumes"}); got != want {
		t.Errorf("Resource() = %v, want %v", got, want)
	}
	if got, want := Kind("LocalVolume"), (schema.GroupKind{Group: "local.storage.openshift.io", Kind: "LocalVolume"}); got != want {
		t.Errorf("Kind() = %v, want %v", got, want)
	}
}
