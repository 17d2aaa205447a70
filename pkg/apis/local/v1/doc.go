// Package v1 contains the LocalVolume API, version v1, of the
// local.storage.openshift.io group: local persistent volumes created from
// device paths listed by name on the selected nodes. It is field-compatible
// with OpenShift local-storage-operator's LocalVolume for the fields it has.
//
// zz_generated.deepcopy.go is written by hack/update-codegen.sh; do not edit
// it by hand. The same script generates the typed clientset, listers and
// informers in pkg/generated/ for the kind tagged genclient, in the group
// named below.
//
// +kubebuilder:object:generate=true
// +groupName=local.storage.openshift.io
package v1
