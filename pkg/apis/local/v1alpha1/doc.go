// Package v1alpha1 contains the LocalVolumeSet API, version v1alpha1, of the
// local.storage.openshift.io group: local persistent volumes created from the
// devices on the selected nodes that match a filter. It is field-compatible
// with OpenShift local-storage-operator's LocalVolumeSet for the fields it
// has.
//
// zz_generated.deepcopy.go is written by hack/update-codegen.sh; do not edit
// it by hand. The same script generates the typed clientset, listers and
// informers in pkg/generated/ for the kind tagged genclient, in the group
// named below.
//
// +kubebuilder:object:generate=true
// +groupName=local.storage.openshift.io
package v1alpha1
