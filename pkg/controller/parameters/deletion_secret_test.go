package parameters

import (
	"context"
	"errors"
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSetDeletionSecretAnnotations(t *testing.T) {
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"keep": "me"}}}
	SetDeletionSecretAnnotations(pv, &v1.SecretReference{Name: "creds", Namespace: "team-a"})
	want := map[string]string{"keep": "me", AnnDeletionSecretName: "creds", AnnDeletionSecretNamespace: "team-a"}
	if !maps.Equal(pv.Annotations, want) {
		t.Errorf("annotations = %v, want %v", pv.Annotations, want)
	}

	pv = &v1.PersistentVolume{}
	SetDeletionSecretAnnotations(pv, nil)
	want = map[string]string{AnnDeletionSecretName: "", AnnDeletionSecretNamespace: ""}
	if !maps.Equal(pv.Annotations, want) {
		t.Errorf("annotations without secret = %v, want %v", pv.Annotations, want)
	}
}

// pvFor returns a PV of class "gold", bound to team-a/data, with annotations.
func pvFor(annotations map[string]string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-1234", Annotations: annotations},
		Spec: v1.PersistentVolumeSpec{
			StorageClassName: "gold",
			ClaimRef:         &v1.ObjectReference{Namespace: "team-a", Name: "data"},
		},
	}
}

// classes serves parameters by class name and fails for unknown classes.
func classes(byName map[string]map[string]string) ClassParametersFunc {
	return func(name string) (map[string]string, error) {
		if p, ok := byName[name]; ok {
			return p, nil
		}
		return nil, errors.New("storageclass " + name + " not found")
	}
}

func noClassLookup(t *testing.T) ClassParametersFunc {
	return func(name string) (map[string]string, error) {
		t.Errorf("class %q looked up although the PV records its secret", name)
		return nil, nil
	}
}

func TestDeletionSecretFromAnnotations(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        *v1.SecretReference
	}{
		{"recorded", map[string]string{AnnDeletionSecretName: "creds", AnnDeletionSecretNamespace: "team-a"}, &v1.SecretReference{Name: "creds", Namespace: "team-a"}},
		{"recorded as none", map[string]string{AnnDeletionSecretName: "", AnnDeletionSecretNamespace: ""}, nil},
		{"name empty", map[string]string{AnnDeletionSecretName: "", AnnDeletionSecretNamespace: "team-a"}, nil},
		{"namespace empty", map[string]string{AnnDeletionSecretName: "creds", AnnDeletionSecretNamespace: ""}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := DeletionSecretRef(context.Background(), pvFor(tc.annotations), noClassLookup(t))
			if err != nil {
				t.Fatalf("DeletionSecretRef: %v", err)
			}
			if !equalRef(ref, tc.want) {
				t.Errorf("DeletionSecretRef = %+v, want %+v", ref, tc.want)
			}
		})
	}
}

func TestDeletionSecretRoundTrip(t *testing.T) {
	for _, ref := range []*v1.SecretReference{nil, {Name: "creds", Namespace: "team-a"}} {
		pv := pvFor(nil)
		SetDeletionSecretAnnotations(pv, ref)
		got, err := DeletionSecretRef(context.Background(), pv, noClassLookup(t))
		if err != nil || !equalRef(got, ref) {
			t.Errorf("round trip of %+v = %+v, %v", ref, got, err)
		}
	}
}

func TestDeletionSecretFromClass(t *testing.T) {
	gold := func(params map[string]string) ClassParametersFunc {
		return classes(map[string]map[string]string{"gold": params})
	}
	tests := []struct {
		name   string
		pv     *v1.PersistentVolume
		lookup ClassParametersFunc
		want   *v1.SecretReference
	}{
		{"literal", pvFor(nil), gold(classFor(Provisioner, "creds", "kube-system")), &v1.SecretReference{Name: "creds", Namespace: "kube-system"}},
		{"claim from claimRef", pvFor(nil), gold(classFor(Provisioner, "${pvc.name}-${pv.name}", "${pvc.namespace}")), &v1.SecretReference{Name: "data-pvc-1234", Namespace: "team-a"}},
		{"only one annotation recorded", pvFor(map[string]string{AnnDeletionSecretName: "ignored"}), gold(classFor(Provisioner, "creds", "ns")), &v1.SecretReference{Name: "creds", Namespace: "ns"}},
		{"deprecated keys", pvFor(nil), gold(map[string]string{"csiProvisionerSecretName": "old", "csiProvisionerSecretNamespace": "ns"}), &v1.SecretReference{Name: "old", Namespace: "ns"}},
		{"default keys", pvFor(nil), gold(map[string]string{Prefix + "secret-name": "dflt", Prefix + "secret-namespace": "ns"}), &v1.SecretReference{Name: "dflt", Namespace: "ns"}},
		{"beta class annotation wins", func() *v1.PersistentVolume {
			pv := pvFor(map[string]string{v1.BetaStorageClassAnnotation: "silver"})
			return pv
		}(), classes(map[string]map[string]string{
			"gold":   classFor(Provisioner, "gold-creds", "ns"),
			"silver": classFor(Provisioner, "silver-creds", "ns"),
		}), &v1.SecretReference{Name: "silver-creds", Namespace: "ns"}},
		// Deletion only needs the provisioner keys; other problems are for provisioning.
		{"other keys broken", pvFor(nil), gold(map[string]string{
			Provisioner.NameKey(): "creds", Provisioner.NamespaceKey(): "ns",
			NodeStage.NameKey(): "half", Prefix + "unknown": "x", FSTypeKey: "ext4", "fstype": "xfs",
		}), &v1.SecretReference{Name: "creds", Namespace: "ns"}},
		{"class without secret", pvFor(nil), gold(map[string]string{"type": "ssd"}), nil},
		{"class not found", pvFor(nil), classes(nil), nil},
		{"no class lookup", pvFor(nil), nil, nil},
		{"no class name", func() *v1.PersistentVolume {
			pv := pvFor(nil)
			pv.Spec.StorageClassName = ""
			return pv
		}(), noClassLookup(t), nil},
		{"no claimRef", func() *v1.PersistentVolume {
			pv := pvFor(nil)
			pv.Spec.ClaimRef = nil
			return pv
		}(), gold(classFor(Provisioner, "creds", "ns")), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := DeletionSecretRef(context.Background(), tc.pv, tc.lookup)
			if err != nil {
				t.Fatalf("DeletionSecretRef: %v", err)
			}
			if !equalRef(ref, tc.want) {
				t.Errorf("DeletionSecretRef = %+v, want %+v", ref, tc.want)
			}
		})
	}
}

func TestDeletionSecretFromClassErrors(t *testing.T) {
	tests := []struct {
		name     string
		params   map[string]string
		key      string
		category error
		want     string
	}{
		// A PV from before the annotations existed cannot know the claim's annotations.
		{"claim annotation", classFor(Provisioner, "${pvc.annotations['example.com/secret']}", "ns"), Provisioner.NameKey(), ErrSecretTemplate, "example.com/secret"},
		{"unknown token", classFor(Provisioner, "creds", "${nope}"), Provisioner.NamespaceKey(), ErrSecretTemplate, "${nope}"},
		{"invalid name", classFor(Provisioner, "Bad_Name", "ns"), Provisioner.NameKey(), ErrSecretTemplate, "not a valid secret name"},
		{"name only", map[string]string{Provisioner.NameKey(): "creds"}, Provisioner.NameKey(), ErrSecretKeys, "either name and namespace for Provisioner secrets specified, Both must be specified"},
		{"name twice", map[string]string{Provisioner.NameKey(): "a", "csiProvisionerSecretName": "b", Provisioner.NamespaceKey(): "ns"}, Provisioner.NameKey(), ErrSecretKeys, `Provisioner secrets specified in parameters with both "csi" and "csi.storage.k8s.io/" keys`},
		{"broken default", map[string]string{Prefix + "secret-namespace": "ns"}, Prefix + "secret-namespace", ErrSecretKeys, "failed to get default name and namespace template from params: either name and namespace for Default secrets specified"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := DeletionSecretRef(context.Background(), pvFor(nil), classes(map[string]map[string]string{"gold": tc.params}))
			if ref != nil {
				t.Errorf("DeletionSecretRef = %+v with error %v", ref, err)
			}
			checkParamError(t, err, tc.key, tc.category, tc.want)
		})
	}
}

func equalRef(a, b *v1.SecretReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// BenchmarkDeletionSecretRef measures finding the secret for DeleteVolume,
// run for every deleted PV: from the PV's annotations (what this
// provisioner records), and from the class template for a PV made by an
// older one, whose class is read and whose template is resolved again.
func BenchmarkDeletionSecretRef(b *testing.B) {
	lookup := classes(map[string]map[string]string{"gold": {
		"type": "ssd", FSTypeKey: "ext4",
		Provisioner.NameKey():      "${pvc.name}-${pv.name}",
		Provisioner.NamespaceKey(): "${pvc.namespace}",
		NodeStage.NameKey():        "stage-creds",
		NodeStage.NamespaceKey():   "kube-system",
	}})
	for _, bc := range []struct {
		name string
		pv   *v1.PersistentVolume
		want v1.SecretReference
	}{
		{"annotations", pvFor(map[string]string{AnnDeletionSecretName: "creds", AnnDeletionSecretNamespace: "team-a"}), v1.SecretReference{Name: "creds", Namespace: "team-a"}},
		{"class-template", pvFor(nil), v1.SecretReference{Name: "data-pvc-1234", Namespace: "team-a"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if ref, err := DeletionSecretRef(context.Background(), bc.pv, lookup); err != nil || !equalRef(ref, &bc.want) {
				b.Fatalf("DeletionSecretRef = %+v, %v; want %+v", ref, err, bc.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				ref, err := DeletionSecretRef(context.Background(), bc.pv, lookup)
				if err != nil {
					b.Fatal(err)
				}
				benchRef = ref
			}
		})
	}
}
