package cleanup

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

// The kinds of owner, as the OwnerKindLabel of a PV and OwnerKey.Kind name
// them.
const (
	KindLocalVolume    = local.KindLocalVolume
	KindLocalVolumeSet = local.KindLocalVolumeSet
)

// The resources the controller watches and patches.
var (
	LocalVolumeResource    = localv1.LocalVolumesResource
	LocalVolumeSetResource = localv1alpha1.LocalVolumeSetsResource
)

// OwnerKey is the queue key of the controller: one LocalVolume or
// LocalVolumeSet.
type OwnerKey struct {
	// Kind is KindLocalVolume or KindLocalVolumeSet.
	Kind      string
	Namespace string
	Name      string
}

func (k OwnerKey) String() string { return k.Kind + " " + k.Namespace + "/" + k.Name }

// owner is what the controller reads of a cached LocalVolume or
// LocalVolumeSet. Its fields point into the cache: read only.
type owner struct {
	key  OwnerKey
	meta metav1.Object
	// nodeSelector selects the nodes whose agents serve the owner; nil is
	// every node.
	nodeSelector *corev1.NodeSelector
	conditions   []metav1.Condition
	// deviceCount is a LocalVolumeSet's status.totalProvisionedDeviceCount
	// (nil when unset, and for a LocalVolume, which has none).
	deviceCount *int32
}

// ownerOf reads a LocalVolume or LocalVolumeSet, or the tombstone of one,
// as an informer hands it over.
func ownerOf(obj interface{}) (*owner, bool) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	switch o := obj.(type) {
	case *localv1.LocalVolume:
		return &owner{
			key:  OwnerKey{Kind: KindLocalVolume, Namespace: o.Namespace, Name: o.Name},
			meta: o, nodeSelector: o.Spec.NodeSelector, conditions: o.Status.Conditions,
		}, true
	case *localv1alpha1.LocalVolumeSet:
		return &owner{
			key:  OwnerKey{Kind: KindLocalVolumeSet, Namespace: o.Namespace, Name: o.Name},
			meta: o, nodeSelector: o.Spec.NodeSelector, conditions: o.Status.Conditions,
			deviceCount: o.Status.TotalProvisionedDeviceCount,
		}, true
	}
	return nil, false
}

// volumeOwner is the key of the LocalVolume or LocalVolumeSet a PV's labels
// name, and false if they name none.
func volumeOwner(pv *corev1.PersistentVolume) (OwnerKey, bool) {
	kind := pv.Labels[local.OwnerKindLabel]
	if kind != KindLocalVolume && kind != KindLocalVolumeSet {
		return OwnerKey{}, false
	}
	namespace, name := pv.Labels[local.OwnerNamespaceLabel], pv.Labels[local.OwnerNameLabel]
	if namespace == "" || name == "" {
		return OwnerKey{}, false
	}
	return OwnerKey{Kind: kind, Namespace: namespace, Name: name}, true
}

// ownerLabels are the labels every PV of the owner key carries.
func ownerLabels(key OwnerKey) map[string]string {
	return map[string]string{
		local.OwnerKindLabel:      key.Kind,
		local.OwnerNamespaceLabel: key.Namespace,
		local.OwnerNameLabel:      key.Name,
	}
}

// ownerRef is what the events of an owner are recorded on. A reference
// rather than the object: the recorder then needs no scheme that knows the
// kind, and objects from typed clients carry no apiVersion and kind.
func ownerRef(gvr schema.GroupVersionResource, o *owner) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		Kind:            o.key.Kind,
		APIVersion:      gvr.GroupVersion().String(),
		Namespace:       o.meta.GetNamespace(),
		Name:            o.meta.GetName(),
		UID:             o.meta.GetUID(),
		ResourceVersion: o.meta.GetResourceVersion(),
	}
}
