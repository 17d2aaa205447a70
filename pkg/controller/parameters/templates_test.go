package parameters

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testClaim() *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name:      "data",
		Namespace: "team-a",
		Annotations: map[string]string{
			"example.com/secret": "claim-creds",
			"example.com/empty":  "",
			"example.com/upper":  "Not_Valid",
		},
	}}
}

var provisionInput = TemplateInput{PVName: "pvc-1234", PVC: testClaim()}

// classFor returns parameters giving kind the two templates.
func classFor(kind SecretKind, name, namespace string) map[string]string {
	return map[string]string{kind.NameKey(): name, kind.NamespaceKey(): namespace}
}

func TestSecretRefResolves(t *testing.T) {
	tests := []struct {
		name, nameTmpl, nsTmpl string
		in                     TemplateInput
		want                   v1.SecretReference
	}{
		{"literal", "creds", "kube-system", provisionInput, v1.SecretReference{Name: "creds", Namespace: "kube-system"}},
		{"pv name", "${pv.name}", "${pv.name}", provisionInput, v1.SecretReference{Name: "pvc-1234", Namespace: "pvc-1234"}},
		{"claim namespace", "${pvc.namespace}", "${pvc.namespace}", provisionInput, v1.SecretReference{Name: "team-a", Namespace: "team-a"}},
		{"claim name", "${pvc.name}-creds", "storage", provisionInput, v1.SecretReference{Name: "data-creds", Namespace: "storage"}},
		{"claim annotation", "${pvc.annotations['example.com/secret']}", "${pvc.namespace}", provisionInput, v1.SecretReference{Name: "claim-creds", Namespace: "team-a"}},
		{"several tokens", "${pvc.namespace}.${pvc.name}.${pv.name}", "x-${pvc.namespace}", provisionInput, v1.SecretReference{Name: "team-a.data.pvc-1234", Namespace: "x-team-a"}},
		{"pv name without claim", "s-${pv.name}", "${pv.name}", TemplateInput{PVName: "pv-1"}, v1.SecretReference{Name: "s-pv-1", Namespace: "pv-1"}},
		// os.Expand drops an unclosed "${", exactly as upstream behaves.
		{"unclosed brace", "${pv.name", "ns", provisionInput, v1.SecretReference{Name: "pv.name", Namespace: "ns"}},
	}
	for _, tc := range tests {
		// Since upstream v5.0 every kind, the provisioner included, accepts
		// the same tokens; deletion uses the name recorded on the PV.
		for _, k := range secretTable[:numKinds] {
			t.Run(tc.name+"/"+string(k.kind), func(t *testing.T) {
				p := mustParse(t, classFor(k.kind, tc.nameTmpl, tc.nsTmpl))
				ref, err := p.SecretRef(k.kind, tc.in)
				if err != nil {
					t.Fatalf("SecretRef: %v", err)
				}
				if ref == nil || *ref != tc.want {
					t.Errorf("SecretRef = %+v, want %+v", ref, tc.want)
				}
			})
		}
	}
}

func TestSecretRefErrors(t *testing.T) {
	const nameKey, nsKey = "csi.storage.k8s.io/node-publish-secret-name", "csi.storage.k8s.io/node-publish-secret-namespace"
	tests := []struct {
		name, nameTmpl, nsTmpl string
		in                     TemplateInput
		key                    string
		want                   string
	}{
		{"unknown token", "${foo}", "ns", provisionInput, nameKey, `error resolving value "${foo}": invalid tokens: ["foo"]`},
		{"unbraced token", "$foo", "ns", provisionInput, nameKey, `error resolving value "$foo": invalid tokens: ["foo"]`},
		{"misspelt pv token", "${pv.Name}", "ns", provisionInput, nameKey, `error resolving value "${pv.Name}": invalid tokens: ["pv.Name"]`},
		{"unknown token in namespace", "n", "${node.name}", provisionInput, nsKey, `error resolving value "${node.name}": invalid tokens: ["node.name"]`},
		{"claim name in namespace", "n", "${pvc.name}", provisionInput, nsKey, `error resolving value "${pvc.name}": invalid tokens: ["pvc.name"]`},
		{"annotation in namespace", "n", "${pvc.annotations['example.com/secret']}", provisionInput, nsKey, `invalid tokens: ["pvc.annotations['example.com/secret']"]`},
		{"missing annotation", "${pvc.annotations['example.com/nope']}", "ns", provisionInput, nameKey, `error resolving value "${pvc.annotations['example.com/nope']}": invalid tokens: ["pvc.annotations['example.com/nope']"]`},
		{"annotation without claim", "${pvc.annotations['example.com/secret']}", "ns", TemplateInput{PVName: "pv"}, nameKey, `invalid tokens: ["pvc.annotations['example.com/secret']"]`},
		{"claim name without claim", "${pvc.name}", "ns", TemplateInput{PVName: "pv"}, nameKey, `invalid tokens: ["pvc.name"]`},
		{"claim namespace without claim", "n", "${pvc.namespace}", TemplateInput{PVName: "pv"}, nsKey, `invalid tokens: ["pvc.namespace"]`},
		{"all bad tokens listed", "${b}-${a}-${b}", "ns", provisionInput, nameKey, `error resolving value "${b}-${a}-${b}": invalid tokens: ["a" "b"]`},
		{"invalid literal name", "Bad_Name", "ns", provisionInput, nameKey, `"Bad_Name" is not a valid secret name`},
		{"invalid resolved name", "${pvc.annotations['example.com/upper']}", "ns", provisionInput, nameKey, `"${pvc.annotations['example.com/upper']}" resolved to "Not_Valid" which is not a valid secret name`},
		{"empty resolved name", "${pvc.annotations['example.com/empty']}", "ns", provisionInput, nameKey, `resolved to ""`},
		{"empty pv name", "${pv.name}", "ns", TemplateInput{}, nameKey, `resolved to ""`},
		{"name too long", strings.Repeat("a", 254), "ns", provisionInput, nameKey, "not a valid secret name"},
		{"invalid literal namespace", "n", "Kube_System", provisionInput, nsKey, `"Kube_System" is not a valid namespace name`},
		{"namespace with a dot", "n", "${pvc.namespace}.x", provisionInput, nsKey, `"${pvc.namespace}.x" resolved to "team-a.x" which is not a valid namespace name`},
		{"namespace too long", "n", strings.Repeat("a", 64), provisionInput, nsKey, "is not a valid namespace name"},
		{"namespace checked first", "${foo}", "${bar}", provisionInput, nsKey, "${bar}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, classFor(NodePublish, tc.nameTmpl, tc.nsTmpl))
			ref, err := p.SecretRef(NodePublish, tc.in)
			if ref != nil {
				t.Errorf("SecretRef = %+v with error %v", ref, err)
			}
			checkParamError(t, err, tc.key, ErrSecretTemplate, tc.want)
		})
	}
}

func TestSecretRefDeprecatedKeyNamed(t *testing.T) {
	p := mustParse(t, map[string]string{"csiNodeStageSecretName": "${nope}", "csiNodeStageSecretNamespace": "ns"})
	_, err := p.SecretRef(NodeStage, provisionInput)
	checkParamError(t, err, "csiNodeStageSecretName", ErrSecretTemplate, "${nope}")
}

func TestSecretRefDefaultKeyNamed(t *testing.T) {
	p := mustParse(t, map[string]string{Prefix + "secret-name": "n", Prefix + "secret-namespace": "${pvc.name}"})
	_, err := p.SecretRef(ControllerExpand, provisionInput)
	checkParamError(t, err, Prefix+"secret-namespace", ErrSecretTemplate, `invalid tokens: ["pvc.name"]`)
}

func TestSecretRefNone(t *testing.T) {
	p := mustParse(t, map[string]string{NodeStage.NameKey(): "n", NodeStage.NamespaceKey(): "ns"})
	ref, err := p.SecretRef(Provisioner, provisionInput)
	if ref != nil || err != nil {
		t.Errorf("SecretRef = %+v, %v; want nil, nil", ref, err)
	}
}

func TestSecretRefUnknownKind(t *testing.T) {
	p := mustParse(t, nil)
	if _, err := p.SecretRef("attach", provisionInput); err == nil || !strings.Contains(err.Error(), `"attach"`) {
		t.Errorf("SecretRef of an unknown kind: error %v", err)
	}
}

func TestSetPVSecretRefs(t *testing.T) {
	p := mustParse(t, map[string]string{
		Provisioner.NameKey():              "prov",
		Provisioner.NamespaceKey():         "ns",
		ControllerPublish.NameKey():        "publish-${pvc.name}",
		ControllerPublish.NamespaceKey():   "${pvc.namespace}",
		"csiNodeStageSecretName":           "stage",
		"csiNodeStageSecretNamespace":      "ns",
		NodeExpand.NameKey():               "${pvc.annotations['example.com/secret']}",
		NodeExpand.NamespaceKey():          "ns",
		Prefix + "secret-name":             "fallback",
		Prefix + "secret-namespace":        "ns",
		ControllerExpand.NameKey():         "expand",
		ControllerExpand.NamespaceKey():    "ns",
		"unrelated-driver-parameter-value": "x",
	})
	src := &v1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}
	if err := p.SetPVSecretRefs(src, provisionInput); err != nil {
		t.Fatalf("SetPVSecretRefs: %v", err)
	}
	want := &v1.CSIPersistentVolumeSource{
		Driver:                     "d",
		VolumeHandle:               "h",
		ControllerPublishSecretRef: &v1.SecretReference{Name: "publish-data", Namespace: "team-a"},
		NodeStageSecretRef:         &v1.SecretReference{Name: "stage", Namespace: "ns"},
		NodePublishSecretRef:       &v1.SecretReference{Name: "fallback", Namespace: "ns"},
		ControllerExpandSecretRef:  &v1.SecretReference{Name: "expand", Namespace: "ns"},
		NodeExpandSecretRef:        &v1.SecretReference{Name: "claim-creds", Namespace: "ns"},
	}
	if !reflect.DeepEqual(src, want) {
		t.Errorf("source = %+v\nwant %+v", src, want)
	}
}

func TestSetPVSecretRefsNone(t *testing.T) {
	p := mustParse(t, classFor(Provisioner, "prov", "ns"))
	src := &v1.CSIPersistentVolumeSource{NodeStageSecretRef: &v1.SecretReference{Name: "stale"}}
	if err := p.SetPVSecretRefs(src, provisionInput); err != nil {
		t.Fatalf("SetPVSecretRefs: %v", err)
	}
	if !reflect.DeepEqual(src, &v1.CSIPersistentVolumeSource{}) {
		t.Errorf("source = %+v, want no secret references", src)
	}
}

func TestSetPVSecretRefsErrorLeavesSource(t *testing.T) {
	params := classFor(NodeExpand, "${pvc.annotations['example.com/nope']}", "ns")
	params[NodeStage.NameKey()], params[NodeStage.NamespaceKey()] = "stage", "ns"
	p := mustParse(t, params)
	src := &v1.CSIPersistentVolumeSource{Driver: "d"}
	err := p.SetPVSecretRefs(src, provisionInput)
	checkParamError(t, err, NodeExpand.NameKey(), ErrSecretTemplate, "example.com/nope")
	if !reflect.DeepEqual(src, &v1.CSIPersistentVolumeSource{Driver: "d"}) {
		t.Errorf("source changed on error: %+v", src)
	}
}

var benchRef *v1.SecretReference

func BenchmarkSecretRef(b *testing.B) {
	cases := []struct {
		name, nameTmpl, nsTmpl string
	}{
		{"literal", "creds", "kube-system"},
		{"namespace token", "creds", "${pvc.namespace}"},
		{"annotation", "${pvc.annotations['example.com/secret']}", "${pvc.namespace}"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p, err := Parse(classFor(Provisioner, c.nameTmpl, c.nsTmpl))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				ref, err := p.SecretRef(Provisioner, provisionInput)
				if err != nil {
					b.Fatal(err)
				}
				benchRef = ref
			}
		})
	}
}
