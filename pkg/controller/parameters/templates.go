package parameters

import (
	"fmt"
	"os"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Tokens a secret template may use, as ${token}.
const (
	tokenPVName           = "pv.name"
	tokenPVCName          = "pvc.name"
	tokenPVCNamespace     = "pvc.namespace"
	annotationTokenPrefix = "pvc.annotations['"
)

// TemplateInput is what secret templates are resolved against. PVC is nil
// where no claim is known; the claim's tokens then fail to resolve.
type TemplateInput struct {
	PVName string
	PVC    *v1.PersistentVolumeClaim
}

// SecretRef resolves the secret reference of kind. It returns nil, nil when
// the class sets no secret for kind. Errors are *ParamError.
func (p *Parsed) SecretRef(kind SecretKind, in TemplateInput) (*v1.SecretReference, error) {
	i, ok := slotOf(kind)
	if !ok {
		return nil, fmt.Errorf("unknown secret kind %q", kind)
	}
	if !p.hasSecret[i] {
		return nil, nil
	}
	return p.secrets[i].Resolve(in)
}

// SetPVSecretRefs fills the secret references a provisioned PV carries for
// later calls: controller publish, node stage, node publish and both expands.
// src is left untouched on error.
func (p *Parsed) SetPVSecretRefs(src *v1.CSIPersistentVolumeSource, in TemplateInput) error {
	kinds := [...]SecretKind{ControllerPublish, NodeStage, NodePublish, ControllerExpand, NodeExpand}
	var refs [len(kinds)]*v1.SecretReference
	for i, kind := range kinds {
		ref, err := p.SecretRef(kind, in)
		if err != nil {
			return err
		}
		refs[i] = ref
	}
	src.ControllerPublishSecretRef = refs[0]
	src.NodeStageSecretRef = refs[1]
	src.NodePublishSecretRef = refs[2]
	src.ControllerExpandSecretRef = refs[3]
	src.NodeExpandSecretRef = refs[4]
	return nil
}

// Resolve expands the templates and checks the result is a usable secret
// reference. The namespace may use ${pv.name} and ${pvc.namespace}; the name
// also ${pvc.name} and ${pvc.annotations['<key>']}. The namespace is kept
// away from user-controlled values (claim name, annotations) so that users
// cannot point the provisioner at secrets in other namespaces.
func (t SecretTemplate) Resolve(in TemplateInput) (*v1.SecretReference, error) {
	ns, err := expand(t.Namespace, t.NamespaceKey, in, false)
	if err != nil {
		return nil, err
	}
	if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
		return nil, invalidResult(t.NamespaceKey, t.Namespace, ns, "namespace name")
	}
	name, err := expand(t.Name, t.NameKey, in, true)
	if err != nil {
		return nil, err
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return nil, invalidResult(t.NameKey, t.Name, name, "secret name")
	}
	return &v1.SecretReference{Name: name, Namespace: ns}, nil
}

// expand substitutes the tokens of tmpl. os.Expand is what upstream uses, so
// odd syntax ("$x", "${unclosed") behaves exactly the same.
func expand(tmpl, key string, in TemplateInput, inName bool) (string, error) {
	if strings.IndexByte(tmpl, '$') < 0 {
		return tmpl, nil
	}
	var bad []string
	out := os.Expand(tmpl, func(tok string) string {
		v, ok := lookupToken(tok, in, inName)
		if !ok && !slices.Contains(bad, tok) {
			bad = append(bad, tok)
		}
		return v
	})
	if len(bad) == 0 {
		return out, nil
	}
	slices.Sort(bad)
	return "", paramError(ErrSecretTemplate, key, "error resolving value %q: invalid tokens: %q", tmpl, bad)
}

func lookupToken(tok string, in TemplateInput, inName bool) (string, bool) {
	if tok == tokenPVName {
		return in.PVName, true
	}
	if in.PVC == nil {
		return "", false
	}
	switch {
	case tok == tokenPVCNamespace:
		return in.PVC.Namespace, true
	case !inName:
		return "", false
	case tok == tokenPVCName:
		return in.PVC.Name, true
	}
	key, ok := annotationKey(tok)
	if !ok {
		return "", false
	}
	v, ok := in.PVC.Annotations[key]
	return v, ok
}

// annotationKey returns <key> from the token pvc.annotations['<key>'].
func annotationKey(tok string) (string, bool) { return quotedKey(tok, annotationTokenPrefix) }

// invalidResult words an invalid secret namespace or name (what: "namespace
// name" or "secret name") as upstream does.
func invalidResult(key, tmpl, got, what string) *ParamError {
	if got == tmpl {
		return paramError(ErrSecretTemplate, key, "%q is not a valid %s", tmpl, what)
	}
	return paramError(ErrSecretTemplate, key, "%q resolved to %q which is not a valid %s", tmpl, got, what)
}
