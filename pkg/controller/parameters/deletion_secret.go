package parameters

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// The provisioner records on each PV the provisioner secret it was created
// with, so that deletion neither depends on the StorageClass still existing
// unchanged nor on the claim (whose annotations a template may have used).
const (
	AnnDeletionSecretName      = "volume.kubernetes.io/provisioner-deletion-secret-name"
	AnnDeletionSecretNamespace = "volume.kubernetes.io/provisioner-deletion-secret-namespace"
)

// SetDeletionSecretAnnotations records ref on pv. A nil ref is recorded as
// two empty values, meaning "delete without secret", as upstream does.
func SetDeletionSecretAnnotations(pv *v1.PersistentVolume, ref *v1.SecretReference) {
	var name, namespace string
	if ref != nil {
		name, namespace = ref.Name, ref.Namespace
	}
	metav1.SetMetaDataAnnotation(&pv.ObjectMeta, AnnDeletionSecretName, name)
	metav1.SetMetaDataAnnotation(&pv.ObjectMeta, AnnDeletionSecretNamespace, namespace)
}

// ClassParametersFunc returns the parameters of the named StorageClass; for a
// migrated in-tree volume, those of the translated class. An error (not
// found included) makes deletion go ahead without secret, as upstream does.
type ClassParametersFunc func(className string) (map[string]string, error)

// DeletionSecretRef returns the provisioner secret to pass to DeleteVolume,
// nil when none is needed.
//
// With both annotations on the PV, they decide: both set gives the
// reference, anything else none. Without them (a PV from an older
// provisioner), the class's provisioner secret template is resolved with the
// PV name and the claim name and namespace from the PV's claimRef; the
// claim's annotations are unknown by then. No class name, no class or no
// claimRef means no secret. Only a broken template is an error.
func DeletionSecretRef(ctx context.Context, pv *v1.PersistentVolume, classParams ClassParametersFunc) (*v1.SecretReference, error) {
	name, hasName := pv.Annotations[AnnDeletionSecretName]
	namespace, hasNamespace := pv.Annotations[AnnDeletionSecretNamespace]
	if hasName && hasNamespace {
		if name == "" || namespace == "" {
			return nil, nil
		}
		return &v1.SecretReference{Name: name, Namespace: namespace}, nil
	}

	className := persistentVolumeClass(pv)
	if className == "" {
		return nil, nil
	}
	if classParams == nil {
		return nil, nil
	}
	params, err := classParams(className)
	if err != nil {
		klog.FromContext(ctx).Info("Warning: deleting the PV's volume without secrets: its StorageClass cannot be read", "PV", pv.Name, "storageClass", className, "err", err)
		return nil, nil
	}
	if pv.Spec.ClaimRef == nil {
		klog.FromContext(ctx).Info("Warning: deleting the PV's volume without secrets: it has no claimRef", "PV", pv.Name)
		return nil, nil
	}
	t, ok, perr := secretTemplateOf(params, secretTable[provisionerSlot])
	if perr != nil {
		return nil, fmt.Errorf("deletion secret of PV %s: %w", pv.Name, perr)
	}
	if !ok {
		return nil, nil
	}
	ref, err := t.Resolve(TemplateInput{
		PVName: pv.Name,
		PVC: &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
			Name:      pv.Spec.ClaimRef.Name,
			Namespace: pv.Spec.ClaimRef.Namespace,
		}},
	})
	if err != nil {
		return nil, fmt.Errorf("deletion secret of PV %s: %w", pv.Name, err)
	}
	return ref, nil
}

// secretTemplateOf checks only the keys of one kind (and the default keys),
// so that deletion is not blocked by parameters it does not use.
func secretTemplateOf(params map[string]string, keys secretKeys) (SecretTemplate, bool, *ParamError) {
	own := lookupSecret(params, keys)
	if t, ok, err := own.template(keys); err != nil || ok {
		return t, ok, err
	}
	def := lookupSecret(params, secretTable[defaultSlot])
	return def.template(secretTable[defaultSlot])
}

func lookupSecret(params map[string]string, keys secretKeys) rawSecret {
	var r rawSecret
	for f, key := range [...]string{keys.name, keys.namespace, keys.deprecatedName, keys.deprecatedNamespace} {
		if key == "" {
			continue
		}
		if v, ok := params[key]; ok {
			r[f] = rawValue{v, true}
		}
	}
	return r
}

// persistentVolumeClass prefers the beta annotation, like the Kubernetes
// controllers do.
func persistentVolumeClass(pv *v1.PersistentVolume) string {
	if class, ok := pv.Annotations[v1.BetaStorageClassAnnotation]; ok {
		return class
	}
	return pv.Spec.StorageClassName
}
