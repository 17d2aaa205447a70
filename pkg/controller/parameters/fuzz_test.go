package parameters

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// fuzzParams builds a parameter map from one string of "key=value" lines,
// so the fuzzer can grow maps of any size and any keys.
func fuzzParams(s string) map[string]string {
	params := map[string]string{}
	for line := range strings.SplitSeq(s, "\n") {
		k, v, _ := strings.Cut(line, "=")
		params[k] = v
	}
	return params
}

// Whatever a StorageClass holds, Parse answers without panicking, with a
// *ParamError or with a result that passes on exactly the keys without
// the reserved prefix.
func FuzzParse(f *testing.F) {
	f.Add("type=ssd\ncsi.storage.k8s.io/fstype=xfs")
	f.Add("csi.storage.k8s.io/provisioner-secret-name=${pvc.name}\ncsi.storage.k8s.io/provisioner-secret-namespace=${pvc.namespace}")
	f.Add("csi.storage.k8s.io/secret-name=x\ncsiNodeStageSecretName=y\ncsiNodeStageSecretNamespace=z")
	f.Add("fstype=ext4\ncsi.storage.k8s.io/fstype=xfs")
	f.Add("csi.storage.k8s.io/bogus=1")
	f.Add("csi.storage.k8s.io/controller-modify-secret-name=m")
	f.Fuzz(func(t *testing.T, s string) {
		params := fuzzParams(s)
		parsed, err := Parse(params)
		if err != nil {
			var perr *ParamError
			if !errors.As(err, &perr) || perr.Err == nil {
				t.Fatalf("error %v is not a categorised *ParamError", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q spans lines", err)
			}
			return
		}
		for k, v := range params {
			got, passed := parsed.DriverParameters[k]
			if strings.HasPrefix(k, Prefix) == passed {
				t.Fatalf("key %q: passed to the driver = %v", k, passed)
			}
			if passed && got != v {
				t.Fatalf("key %q: driver gets %q, class has %q", k, got, v)
			}
		}
		if len(parsed.DriverParameters) > len(params) {
			t.Fatalf("driver parameters %v hold keys the class does not", parsed.DriverParameters)
		}
		if v, ok := params[FSTypeKey]; ok && parsed.FSType != v {
			t.Fatalf("FSType %q, class sets %q", parsed.FSType, v)
		}
	})
}

// A resolved secret reference is always a valid name in a valid namespace,
// and the namespace never comes from what the claim's owner controls.
func FuzzSecretTemplateResolve(f *testing.F) {
	f.Add("${pvc.name}-creds", "${pvc.namespace}", "db", "apps", "key", "value")
	f.Add("${pvc.annotations['team']}", "ns-${pv.name}", "db", "apps", "team", "blue")
	f.Add("${pv.name", "$x", "", "", "", "")
	f.Add("creds", "${pvc.name}", "kube-system", "apps", "", "")
	f.Fuzz(func(t *testing.T, nameTmpl, nsTmpl, claimName, claimNamespace, annKey, annValue string) {
		in := TemplateInput{PVName: "pvc-0b6d5fa4", PVC: &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
			Name: claimName, Namespace: claimNamespace, Annotations: map[string]string{annKey: annValue},
		}}}
		tmpl := SecretTemplate{Name: nameTmpl, Namespace: nsTmpl, NameKey: Provisioner.NameKey(), NamespaceKey: Provisioner.NamespaceKey()}
		ref, err := tmpl.Resolve(in)
		if err != nil {
			var perr *ParamError
			if !errors.As(err, &perr) {
				t.Fatalf("error %v is not a *ParamError", err)
			}
			return
		}
		if msgs := validation.IsDNS1123Subdomain(ref.Name); len(msgs) > 0 {
			t.Fatalf("resolved name %q is invalid: %v", ref.Name, msgs)
		}
		if msgs := validation.IsDNS1123Label(ref.Namespace); len(msgs) > 0 {
			t.Fatalf("resolved namespace %q is invalid: %v", ref.Namespace, msgs)
		}
		// Resolving the namespace with other claim names and annotations
		// gives the same: only ${pv.name} and ${pvc.namespace} reach it.
		other := in
		other.PVC = in.PVC.DeepCopy()
		other.PVC.Name = "someone-else"
		other.PVC.Annotations = map[string]string{annKey: "elsewhere"}
		again, err := SecretTemplate{Namespace: nsTmpl, Name: "x", NameKey: tmpl.NameKey, NamespaceKey: tmpl.NamespaceKey}.Resolve(other)
		if err != nil || again.Namespace != ref.Namespace {
			t.Fatalf("namespace %q follows the claim's name or annotations (otherwise %v, %v)", ref.Namespace, again, err)
		}
	})
}
