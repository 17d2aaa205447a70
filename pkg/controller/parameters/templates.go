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
	annotationTokenSuffix = "']"
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
		return nil, invalidResult(t.NamespaceKey, t.Namespace, ns, "namespace", msgs)
	}
	name, err := expand(t.Name, t.NameKey, in, true)
	if err != nil {
		return nil, err
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return nil, invalidResult(t.NameKey, t.Name, name, "name", msgs)
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
	reasons := make([]string, len(bad))
	for i, tok := range bad {
		reasons[i] = explainToken(tok, in, inName)
	}
	return "", paramError(ErrSecretTemplate, key, "cannot resolve %q: %s", tmpl, strings.Join(reasons, "; "))
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
func annotationKey(tok string) (string, bool) {
	if len(tok) < len(annotationTokenPrefix)+len(annotationTokenSuffix) ||
		!strings.HasPrefix(tok, annotationTokenPrefix) || !strings.HasSuffix(tok, annotationTokenSuffix) {
		return "", false
	}
	return tok[len(annotationTokenPrefix) : len(tok)-len(annotationTokenSuffix)], true
}

// explainToken says why tok did not resolve; lookupToken decides that it did not.
func explainToken(tok string, in TemplateInput, inName bool) string {
	annotation, isAnnotation := annotationKey(tok)
	switch {
	case tok != tokenPVCName && tok != tokenPVCNamespace && !isAnnotation:
		return fmt.Sprintf("unknown token ${%s}", tok)
	case !inName && tok != tokenPVCNamespace:
		return fmt.Sprintf("${%s} is not allowed in a secret namespace, only ${%s} and ${%s} are", tok, tokenPVName, tokenPVCNamespace)
	case in.PVC == nil:
		return fmt.Sprintf("${%s} needs the claim, which is not known here", tok)
	default:
		return fmt.Sprintf("claim %s/%s has no annotation %q", in.PVC.Namespace, in.PVC.Name, annotation)
	}
}

func invalidResult(key, tmpl, got, what string, msgs []string) *ParamError {
	if got == tmpl {
		return paramError(ErrSecretTemplate, key, "%q is not a valid secret %s: %s", tmpl, what, strings.Join(msgs, "; "))
	}
	return paramError(ErrSecretTemplate, key, "%q resolved to %q, which is not a valid secret %s: %s",
		tmpl, got, what, strings.Join(msgs, "; "))
}
