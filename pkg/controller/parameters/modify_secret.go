package parameters

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The PV records its ControllerModifyVolume secret here, where the
// external-resizer reads it.
const (
	AnnControllerModifySecretName      = "volume.kubernetes.io/controller-modify-secret-name"
	AnnControllerModifySecretNamespace = "volume.kubernetes.io/controller-modify-secret-namespace"
)

// SetControllerModifySecretAnnotations records ref on pv; a nil ref
// records nothing, as upstream does.
func SetControllerModifySecretAnnotations(pv *v1.PersistentVolume, ref *v1.SecretReference) {
	if ref == nil {
		return
	}
	metav1.SetMetaDataAnnotation(&pv.ObjectMeta, AnnControllerModifySecretName, ref.Name)
	metav1.SetMetaDataAnnotation(&pv.ObjectMeta, AnnControllerModifySecretNamespace, ref.Namespace)
}
