package local_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

// crdDir holds the manifests that hack/update-codegen.sh generates.
const crdDir = "../../../deploy/kubernetes/crds"

// loadCRDs reads every manifest in crdDir, keyed by file name.
func loadCRDs(t *testing.T) map[string]map[string]interface{} {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crds := map[string]map[string]interface{}{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		j, err := yaml.ToJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var obj map[string]interface{}
		if err := json.Unmarshal(j, &obj); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crds[filepath.Base(f)] = obj
	}
	return crds
}

// at follows path (map keys, or ints for list indexes) into obj.
func at(obj interface{}, path ...interface{}) (interface{}, error) {
	cur := obj
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]interface{})
			if !ok {
				return nil, fmt.Errorf("%v is not an object", path[:i])
			}
			if cur, ok = m[k]; !ok {
				return nil, fmt.Errorf("%v has no %q", path[:i], k)
			}
		case int:
			l, ok := cur.([]interface{})
			if !ok || k >= len(l) {
				return nil, fmt.Errorf("%v is not a list with an item %d", path[:i], k)
			}
			cur = l[k]
		}
	}
	return cur, nil
}

func mustAt(t *testing.T, obj interface{}, path ...interface{}) interface{} {
	t.Helper()
	v, err := at(obj, path...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func keys(t *testing.T, obj interface{}, path ...interface{}) []string {
	t.Helper()
	m, ok := mustAt(t, obj, path...).(map[string]interface{})
	if !ok {
		t.Fatalf("%v is not an object", path)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func strs(vs ...string) []interface{} {
	out := make([]interface{}, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// check is one expectation on a CRD: the value at path.
type check struct {
	path []interface{}
	want interface{}
}

func p(path ...interface{}) []interface{} { return path }

func TestCRDs(t *testing.T) {
	crds := loadCRDs(t)

	// The API packages register each kind; the CRDs must serve the same.
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{localv1.AddToScheme, localv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}

	schemaOf := p("spec", "versions", 0, "schema", "openAPIV3Schema", "properties")
	sub := func(rest ...interface{}) []interface{} { return append(append([]interface{}{}, schemaOf...), rest...) }
	volumeModeEnum := strs("Block", "Filesystem")

	tests := []struct {
		file     string
		gv       schema.GroupVersion
		kind     string
		plural   string
		specKeys []string // the LSO field names
		statKeys []string
		checks   []check
	}{{
		file:     "local.storage.openshift.io_localvolumes.yaml",
		gv:       localv1.SchemeGroupVersion,
		kind:     "LocalVolume",
		plural:   "localvolumes",
		specKeys: []string{"nodeSelector", "storageClassDevices", "tolerations"},
		statKeys: []string{"conditions", "observedGeneration"},
		checks: func() []check {
			dev := sub("spec", "properties", "storageClassDevices", "items")
			at := func(rest ...interface{}) []interface{} { return append(append([]interface{}{}, dev...), rest...) }
			return []check{
				{sub("spec", "required"), strs("storageClassDevices")},
				{sub("spec", "properties", "storageClassDevices", "minItems"), 1.0},
				{at("required"), strs("devicePaths", "storageClassName")},
				{at("properties", "devicePaths", "minItems"), 1.0},
				{at("properties", "devicePaths", "items", "pattern"), "^/dev/"},
				{at("properties", "volumeMode", "enum"), volumeModeEnum},
				{at("properties", "volumeMode", "default"), "Filesystem"},
				{at("properties", "forceWipeDevicesAndDestroyAllData", "type"), "boolean"},
				{sub("status", "properties", "conditions", "x-kubernetes-list-type"), "map"},
				{sub("status", "properties", "conditions", "x-kubernetes-list-map-keys"), strs("type")},
			}
		}(),
	}, {
		file:     "local.storage.openshift.io_localvolumesets.yaml",
		gv:       localv1alpha1.SchemeGroupVersion,
		kind:     "LocalVolumeSet",
		plural:   "localvolumesets",
		specKeys: []string{"deviceInclusionSpec", "fsType", "maxDeviceCount", "nodeSelector", "storageClassName", "tolerations", "volumeMode"},
		statKeys: []string{"conditions", "observedGeneration", "totalProvisionedDeviceCount"},
		checks: func() []check {
			inc := sub("spec", "properties", "deviceInclusionSpec", "properties")
			at := func(rest ...interface{}) []interface{} { return append(append([]interface{}{}, inc...), rest...) }
			return []check{
				{sub("spec", "required"), strs("storageClassName")},
				{sub("spec", "properties", "volumeMode", "enum"), volumeModeEnum},
				{sub("spec", "properties", "volumeMode", "default"), "Filesystem"},
				{sub("spec", "properties", "maxDeviceCount", "minimum"), 1.0},
				{at("deviceTypes", "items", "enum"), strs("disk", "part", "loop", "mpath")},
				{at("deviceMechanicalProperties", "items", "enum"), strs("Rotational", "NonRotational")},
				{at("minSize", "x-kubernetes-int-or-string"), true},
				{at("maxSize", "x-kubernetes-int-or-string"), true},
				{sub("status", "properties", "conditions", "x-kubernetes-list-type"), "map"},
				{sub("status", "properties", "conditions", "x-kubernetes-list-map-keys"), strs("type")},
			}
		}(),
	}}

	var wantFiles, gotFiles []string
	for _, tc := range tests {
		wantFiles = append(wantFiles, tc.file)
	}
	for f := range crds {
		gotFiles = append(gotFiles, f)
	}
	sort.Strings(gotFiles)
	if !reflect.DeepEqual(gotFiles, wantFiles) {
		t.Errorf("CRD files in %s = %v, want %v", crdDir, gotFiles, wantFiles)
	}

	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			crd, ok := crds[tc.file]
			if !ok {
				t.Fatalf("%s not found in %s: run hack/update-codegen.sh", tc.file, crdDir)
			}
			if !scheme.Recognizes(tc.gv.WithKind(tc.kind)) || !scheme.Recognizes(tc.gv.WithKind(tc.kind+"List")) {
				t.Errorf("the scheme does not know %s and its list in %s", tc.kind, tc.gv)
			}
			if tc.gv.Group != local.GroupName {
				t.Errorf("SchemeGroupVersion group %q, want %q", tc.gv.Group, local.GroupName)
			}

			for _, c := range []check{
				{p("apiVersion"), "apiextensions.k8s.io/v1"},
				{p("kind"), "CustomResourceDefinition"},
				{p("metadata", "name"), tc.plural + "." + local.GroupName},
				{p("spec", "group"), local.GroupName},
				{p("spec", "scope"), "Namespaced"},
				{p("spec", "names", "kind"), tc.kind},
				{p("spec", "names", "listKind"), tc.kind + "List"},
				{p("spec", "names", "plural"), tc.plural},
				{p("spec", "names", "singular"), strings.ToLower(tc.kind)},
				{p("spec", "versions", 0, "name"), tc.gv.Version},
				{p("spec", "versions", 0, "served"), true},
				{p("spec", "versions", 0, "storage"), true},
				{p("spec", "versions", 0, "subresources", "status"), map[string]interface{}{}},
			} {
				if got := mustAt(t, crd, c.path...); !reflect.DeepEqual(got, c.want) {
					t.Errorf("%v = %#v, want %#v", c.path, got, c.want)
				}
			}
			if n := len(mustAt(t, crd, "spec", "versions").([]interface{})); n != 1 {
				t.Errorf("%d versions, want 1", n)
			}

			// Printer columns: a storage class column and the age.
			var columns []string
			for _, col := range mustAt(t, crd, "spec", "versions", 0, "additionalPrinterColumns").([]interface{}) {
				columns = append(columns, col.(map[string]interface{})["name"].(string))
			}
			for _, want := range []string{"StorageClass", "Age"} {
				found := false
				for _, c := range columns {
					found = found || c == want
				}
				if !found {
					t.Errorf("printer columns %v have no %s", columns, want)
				}
			}

			if got := keys(t, crd, sub("spec", "properties")...); !reflect.DeepEqual(got, tc.specKeys) {
				t.Errorf("spec fields = %v, want %v", got, tc.specKeys)
			}
			if got := keys(t, crd, sub("status", "properties")...); !reflect.DeepEqual(got, tc.statKeys) {
				t.Errorf("status fields = %v, want %v", got, tc.statKeys)
			}
			for _, c := range tc.checks {
				got, err := at(crd, c.path...)
				if err != nil {
					t.Errorf("%v", err)
					continue
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("%v = %#v, want %#v", c.path[len(schemaOf):], got, c.want)
				}
			}
		})
	}
}
