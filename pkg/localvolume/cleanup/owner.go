package cleanup

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

// The kinds of owner, as the OwnerKindLabel of a PV and the first part of a
// queue key name them.
const (
	KindLocalVolume    = local.KindLocalVolume
	KindLocalVolumeSet = local.KindLocalVolumeSet
)

// The resources the controller watches and patches.
var (
	LocalVolumeResource    = localv1.LocalVolumesResource
	LocalVolumeSetResource = localv1alpha1.LocalVolumeSetsResource
)

// kind is one of the two owner kinds and what the controller holds for it.
type kind struct {
	name   string
	gvr    schema.GroupVersionResource
	lister cache.GenericLister
	synced cache.InformerSynced
	// nodeSelector reads the node selector of an object of the kind, through
	// its typed API.
	nodeSelector func(u *unstructured.Unstructured) (*corev1.NodeSelector, error)
}

func localVolumeSelector(u *unstructured.Unstructured) (*corev1.NodeSelector, error) {
	var lv localv1.LocalVolume
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &lv); err != nil {
		return nil, err
	}
	return lv.Spec.NodeSelector, nil
}

func localVolumeSetSelector(u *unstructured.Unstructured) (*corev1.NodeSelector, error) {
	var lvs localv1alpha1.LocalVolumeSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &lvs); err != nil {
		return nil, err
	}
	return lvs.Spec.NodeSelector, nil
}

// ownerKey is the queue key of an owner: "<Kind>/<namespace>/<name>".
func ownerKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// splitKey undoes ownerKey.
func splitKey(key string) (kind, namespace, name string, err error) {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return "", "", "", fmt.Errorf("malformed key %q, want <Kind>/<namespace>/<name>", key)
	}
	return parts[0], parts[1], parts[2], nil
}

// volumeOwner is the key of the LocalVolume or LocalVolumeSet a PV's labels
// name, or "" if they name none.
func volumeOwner(pv *corev1.PersistentVolume) string {
	kind := pv.Labels[local.OwnerKindLabel]
	if kind != KindLocalVolume && kind != KindLocalVolumeSet {
		return ""
	}
	namespace, name := pv.Labels[local.OwnerNamespaceLabel], pv.Labels[local.OwnerNameLabel]
	if namespace == "" || name == "" {
		return ""
	}
	return ownerKey(kind, namespace, name)
}

// ownerLabels are the labels every PV of the owner key carries.
func ownerLabels(kind, namespace, name string) map[string]string {
	return map[string]string{
		local.OwnerKindLabel:      kind,
		local.OwnerNamespaceLabel: namespace,
		local.OwnerNameLabel:      name,
	}
}

// ownerRef is what the events of an owner are recorded on. A reference
// rather than the object: the recorder then needs no scheme that knows the
// kind.
func ownerRef(kind string, gvr schema.GroupVersionResource, u *unstructured.Unstructured) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		Kind:            kind,
		APIVersion:      gvr.GroupVersion().String(),
		Namespace:       u.GetNamespace(),
		Name:            u.GetName(),
		UID:             u.GetUID(),
		ResourceVersion: u.GetResourceVersion(),
	}
}
