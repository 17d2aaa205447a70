package parameters

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// checkParamError asserts err is a *ParamError of the given category for
// key and, when want is not empty, contains want. The texts are upstream
// v6.3.0's (pkg/controller/controller.go: verifyAndGetSecretNameAndNamespaceTemplate,
// getSecretReference, resolveTemplate, removePrefixedParameters,
// prepareProvision), which name no key.
func checkParamError(t *testing.T, err error, key string, category error, want string) {
	t.Helper()
	var perr *ParamError
	if !errors.As(err, &perr) {
		t.Fatalf("error %v (%T) is not a *ParamError", err, err)
	}
	if perr.Key != key {
		t.Errorf("error names key %q, want %q (error: %v)", perr.Key, key, err)
	}
	if !errors.Is(err, category) {
		t.Errorf("error %v is not %v", err, category)
	}
	if want != "" && !strings.Contains(err.Error(), want) {
		t.Errorf("error text %q does not contain %q", err.Error(), want)
	}
}

func mustParse(t *testing.T, params map[string]string) *Parsed {
	t.Helper()
	p, err := Parse(params)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestParseSplitsDriverParameters(t *testing.T) {
	params := map[string]string{
		"type":                          "ssd",
		"replicas":                      "3",
		FSTypeKey:                       "xfs",
		Provisioner.NameKey():           "creds",
		Provisioner.NamespaceKey():      "ns",
		Prefix + "secret-name":          "default",
		Prefix + "secret-namespace":     "ns",
		"csiNodeStageSecretName":        "stage",
		"csiNodeStageSecretNamespace":   "ns",
		"csi.example.com/driver-option": "on",
	}
	before := maps.Clone(params)
	p := mustParse(t, params)

	want := map[string]string{
		"type":     "ssd",
		"replicas": "3",
		// Deprecated keys are not reserved, so upstream passes them on.
		"csiNodeStageSecretName":        "stage",
		"csiNodeStageSecretNamespace":   "ns",
		"csi.example.com/driver-option": "on",
	}
	if !maps.Equal(p.DriverParameters, want) {
		t.Errorf("DriverParameters = %v, want %v", p.DriverParameters, want)
	}
	if p.FSType != "xfs" {
		t.Errorf("FSType = %q, want xfs", p.FSType)
	}
	p.DriverParameters["added"] = "x"
	if !maps.Equal(params, before) {
		t.Errorf("Parse result shares the input map: %v", params)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, params := range []map[string]string{nil, {}} {
		p := mustParse(t, params)
		if p.DriverParameters == nil || len(p.DriverParameters) != 0 {
			t.Errorf("DriverParameters = %#v, want empty non-nil map", p.DriverParameters)
		}
		if p.FSType != "" || p.Warnings != nil {
			t.Errorf("FSType = %q, Warnings = %v, want none", p.FSType, p.Warnings)
		}
		for _, k := range secretTable[:numKinds] {
			if _, ok := p.SecretTemplate(k.kind); ok {
				t.Errorf("kind %s has a secret", k.kind)
			}
		}
	}
}

func TestParseFSType(t *testing.T) {
	tests := []struct {
		name        string
		params      map[string]string
		wantFSType  string
		wantDriver  map[string]string
		wantWarning string
	}{
		{"none", map[string]string{"a": "b"}, "", map[string]string{"a": "b"}, ""},
		{"reserved key", map[string]string{FSTypeKey: "ext4"}, "ext4", map[string]string{}, ""},
		{"deprecated lower case", map[string]string{"fstype": "xfs"}, "xfs", map[string]string{"fstype": "xfs"}, `"fstype" is deprecated`},
		{"deprecated camel case", map[string]string{"fsType": "xfs"}, "xfs", map[string]string{"fsType": "xfs"}, `please use "csi.storage.k8s.io/fstype"`},
		{"deprecated upper case", map[string]string{"FSTYPE": "btrfs"}, "btrfs", map[string]string{"FSTYPE": "btrfs"}, `"FSTYPE" is deprecated`},
		{"empty value", map[string]string{FSTypeKey: ""}, "", map[string]string{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.params)
			if p.FSType != tc.wantFSType {
				t.Errorf("FSType = %q, want %q", p.FSType, tc.wantFSType)
			}
			if !maps.Equal(p.DriverParameters, tc.wantDriver) {
				t.Errorf("DriverParameters = %v, want %v", p.DriverParameters, tc.wantDriver)
			}
			if got := strings.Join(p.Warnings, "\n"); !strings.Contains(got, tc.wantWarning) || (tc.wantWarning == "" && got != "") {
				t.Errorf("Warnings = %q, want one containing %q", p.Warnings, tc.wantWarning)
			}
		})
	}
}

func TestParseSecretTemplates(t *testing.T) {
	p := mustParse(t, map[string]string{
		Provisioner.NameKey():                 "${pvc.name}",
		Provisioner.NamespaceKey():            "${pvc.namespace}",
		"csiControllerPublishSecretName":      "old-name",
		"csiControllerPublishSecretNamespace": "old-ns",
		"csiNodeStageSecretName":              "mixed-name",
		NodeStage.NamespaceKey():              "mixed-ns",
		Prefix + "secret-name":                "default-name",
		Prefix + "secret-namespace":           "default-ns",
		NodeExpand.NameKey():                  "expand",
		NodeExpand.NamespaceKey():             "expand-ns",
	})
	defaultT := SecretTemplate{"default-name", "default-ns", Prefix + "secret-name", Prefix + "secret-namespace"}
	want := map[SecretKind]SecretTemplate{
		Provisioner:       {"${pvc.name}", "${pvc.namespace}", Provisioner.NameKey(), Provisioner.NamespaceKey()},
		ControllerPublish: {"old-name", "old-ns", "csiControllerPublishSecretName", "csiControllerPublishSecretNamespace"},
		NodeStage:         {"mixed-name", "mixed-ns", "csiNodeStageSecretName", NodeStage.NamespaceKey()},
		NodePublish:       defaultT,
		ControllerExpand:  defaultT,
		NodeExpand:        {"expand", "expand-ns", NodeExpand.NameKey(), NodeExpand.NamespaceKey()},
	}
	for kind, w := range want {
		got, ok := p.SecretTemplate(kind)
		if !ok || got != w {
			t.Errorf("SecretTemplate(%s) = %+v, %v; want %+v, true", kind, got, ok, w)
		}
	}
	if _, ok := p.SecretTemplate("bogus"); ok {
		t.Error("SecretTemplate of an unknown kind reported a secret")
	}
	wantWarnings := []string{
		`"csiControllerPublishSecretName" is deprecated and will be removed in a future release, please use "csi.storage.k8s.io/controller-publish-secret-name" instead`,
		`"csiControllerPublishSecretNamespace" is deprecated and will be removed in a future release, please use "csi.storage.k8s.io/controller-publish-secret-namespace" instead`,
		`"csiNodeStageSecretName" is deprecated and will be removed in a future release, please use "csi.storage.k8s.io/node-stage-secret-name" instead`,
	}
	if strings.Join(p.Warnings, "\n") != strings.Join(wantWarnings, "\n") {
		t.Errorf("Warnings = %q, want %q", p.Warnings, wantWarnings)
	}
}

func TestParseKeysOfEveryKind(t *testing.T) {
	for _, k := range secretTable[:numKinds] {
		t.Run(string(k.kind), func(t *testing.T) {
			p := mustParse(t, map[string]string{k.name: "n", k.namespace: "ns"})
			for _, other := range secretTable[:numKinds] {
				_, ok := p.SecretTemplate(other.kind)
				if ok != (other.kind == k.kind) {
					t.Errorf("SecretTemplate(%s) present = %v", other.kind, ok)
				}
			}
		})
	}
}

// A broken default pair only matters to a kind that falls back to it.
func TestParseBrokenDefaultUnused(t *testing.T) {
	params := map[string]string{Prefix + "secret-name": "orphan"}
	for _, k := range secretTable[:numKinds] {
		params[k.name], params[k.namespace] = "n", "ns"
	}
	mustParse(t, params)

	delete(params, NodeExpand.NameKey())
	delete(params, NodeExpand.NamespaceKey())
	_, err := Parse(params)
	checkParamError(t, err, Prefix+"secret-name", ErrSecretKeys,
		"failed to get default name and namespace template from params: either name and namespace for Default secrets specified, Both must be specified")
}

func TestParseErrors(t *testing.T) {
	type tc struct {
		name     string
		params   map[string]string
		key      string
		category error
		want     string
	}
	tests := []tc{
		{"unknown reserved key", map[string]string{Prefix + "foo": "x", "ok": "y"}, Prefix + "foo", ErrUnknownKey, `failed to strip CSI Parameters of prefixed keys: found unknown parameter key "csi.storage.k8s.io/foo" with reserved namespace csi.storage.k8s.io/`},
		{"smallest unknown key reported", map[string]string{Prefix + "zz": "x", Prefix + "aa": "x", Prefix + "mm": "x"}, Prefix + "aa", ErrUnknownKey, ""},
		{"bare prefix", map[string]string{Prefix: "x"}, Prefix, ErrUnknownKey, ""},
		{"case matters for reserved keys", map[string]string{Prefix + "FSType": "ext4"}, Prefix + "FSType", ErrUnknownKey, ""},
		// Upstream adds these itself and rejects them in a class.
		{"pvc name metadata key", map[string]string{PVCNameKey: "x"}, PVCNameKey, ErrUnknownKey, ""},
		{"pvc namespace metadata key", map[string]string{PVCNamespaceKey: "x"}, PVCNamespaceKey, ErrUnknownKey, ""},
		{"pv name metadata key", map[string]string{PVNameKey: "x"}, PVNameKey, ErrUnknownKey, ""},
		{"fstype twice", map[string]string{FSTypeKey: "ext4", "fsType": "xfs"}, FSTypeKey, ErrFSTypeConflict, `fstype specified in parameters with both "fstype" and "csi.storage.k8s.io/fstype" keys`},
		{"deprecated fstype twice", map[string]string{"fstype": "ext4", "FsType": "xfs"}, "FsType", ErrFSTypeConflict, `fstype specified in parameters with both "fstype" and "csi.storage.k8s.io/fstype" keys`},
		{"fstype before unknown", map[string]string{FSTypeKey: "ext4", "fstype": "xfs", Prefix + "x": ""}, FSTypeKey, ErrFSTypeConflict, ""},
		{"secrets before unknown", map[string]string{NodeStage.NameKey(): "n", Prefix + "x": ""}, NodeStage.NameKey(), ErrSecretKeys, ""},
		{"kinds in upstream order", map[string]string{NodeExpand.NameKey(): "n", NodeStage.NamespaceKey(): "ns"}, NodeStage.NamespaceKey(), ErrSecretKeys, ""},
		{"default name only", map[string]string{Prefix + "secret-name": "n"}, Prefix + "secret-name", ErrSecretKeys, "failed to get default name and namespace template from params: either name and namespace for Default secrets specified, Both must be specified"},
		{"default namespace empty", map[string]string{Prefix + "secret-name": "n", Prefix + "secret-namespace": ""}, Prefix + "secret-namespace", ErrSecretKeys, "failed to get default name and namespace template from params: Default secrets specified in parameters but value of either namespace or name is empty"},
	}
	// Upstream names the kinds so in its texts.
	upstreamNames := map[SecretKind]string{
		Provisioner: "Provisioner", ControllerPublish: "ControllerPublish", NodeStage: "NodeStage", NodePublish: "NodePublish",
		ControllerExpand: "ControllerExpand", NodeExpand: "NodeExpand", ControllerModify: "ControllerModify",
	}
	for _, k := range secretTable[:numKinds] {
		kind := string(k.kind)
		const lead = "failed to get name and namespace template from params: "
		half := lead + "either name and namespace for " + upstreamNames[k.kind] + " secrets specified, Both must be specified"
		empty := lead + upstreamNames[k.kind] + " secrets specified in parameters but value of either namespace or name is empty"
		twice := lead + upstreamNames[k.kind] + ` secrets specified in parameters with both "csi" and "csi.storage.k8s.io/" keys`
		tests = append(tests,
			tc{kind + " name only", map[string]string{k.name: "n"}, k.name, ErrSecretKeys, half},
			tc{kind + " namespace only", map[string]string{k.namespace: "ns"}, k.namespace, ErrSecretKeys, half},
			tc{kind + " empty name", map[string]string{k.name: "", k.namespace: "ns"}, k.name, ErrSecretKeys, empty},
			tc{kind + " empty namespace", map[string]string{k.name: "n", k.namespace: ""}, k.namespace, ErrSecretKeys, empty},
		)
		if k.deprecatedName == "" {
			continue
		}
		tests = append(tests,
			tc{kind + " name twice", map[string]string{k.name: "a", k.deprecatedName: "b", k.namespace: "ns"}, k.name, ErrSecretKeys, twice},
			tc{kind + " namespace twice", map[string]string{k.name: "a", k.namespace: "ns", k.deprecatedNamespace: "ns"}, k.namespace, ErrSecretKeys, twice},
			tc{kind + " deprecated name only", map[string]string{k.deprecatedName: "a"}, k.deprecatedName, ErrSecretKeys, half},
			tc{kind + " deprecated namespace only", map[string]string{k.deprecatedNamespace: "ns"}, k.deprecatedNamespace, ErrSecretKeys, half},
			tc{kind + " deprecated empty name", map[string]string{k.deprecatedName: "", k.deprecatedNamespace: "ns"}, k.deprecatedName, ErrSecretKeys, empty},
		)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.params)
			if p != nil {
				t.Errorf("Parse returned a result with error %v", err)
			}
			checkParamError(t, err, tc.key, tc.category, tc.want)
		})
	}
}

var benchParsed *Parsed

func BenchmarkParse(b *testing.B) {
	params := map[string]string{
		"type":                          "ssd",
		"replicas":                      "3",
		"encrypted":                     "true",
		FSTypeKey:                       "ext4",
		Provisioner.NameKey():           "${pvc.annotations['example.com/secret']}",
		Provisioner.NamespaceKey():      "${pvc.namespace}",
		NodeStage.NameKey():             "stage-creds",
		NodeStage.NamespaceKey():        "kube-system",
		ControllerExpand.NameKey():      "expand-creds",
		ControllerExpand.NamespaceKey(): "kube-system",
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := Parse(params)
		if err != nil {
			b.Fatal(err)
		}
		benchParsed = p
	}
}
