package cleanup

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

// --- owners ---

// ownerObject is a LocalVolume or LocalVolumeSet.
type ownerObject interface {
	metav1.Object
	runtime.Object
}

// ownerOption changes a test LocalVolume or LocalVolumeSet.
type ownerOption func(ownerObject)

// newOwner is a LocalVolume or LocalVolumeSet named ownerName in testNS,
// not being deleted, without finalizers, selecting every node.
func newOwner(kind string, opts ...ownerOption) ownerObject {
	meta := metav1.ObjectMeta{Name: ownerName, Namespace: testNS, UID: types.UID("uid-" + kind)}
	var o ownerObject
	switch kind {
	case KindLocalVolume:
		o = &localv1.LocalVolume{
			ObjectMeta: meta,
			Spec: localv1.LocalVolumeSpec{StorageClassDevices: []localv1.StorageClassDevice{
				{StorageClassName: "local", DevicePaths: []string{"/dev/sdb"}},
			}},
		}
	case KindLocalVolumeSet:
		o = &localv1alpha1.LocalVolumeSet{
			ObjectMeta: meta,
			Spec:       localv1alpha1.LocalVolumeSetSpec{StorageClassName: "local"},
		}
	default:
		panic("unknown kind " + kind)
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// protectedOwner carries the finalizer as this controller puts it: with
// the marker annotation.
func protectedOwner(o ownerObject) {
	lsoOwner(o)
	a := o.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[ManagedByAnnotation] = managedByValue
	o.SetAnnotations(a)
}

// lsoOwner carries the finalizer as local-storage-operator puts it.
func lsoOwner(o ownerObject) {
	o.SetFinalizers(append(o.GetFinalizers(), local.LocalVolumeProtectionFinalizer))
}

func deletingOwner(o ownerObject) {
	now := metav1.Now()
	o.SetDeletionTimestamp(&now)
}

func withNodeSelector(selector *corev1.NodeSelector) ownerOption {
	return func(o ownerObject) {
		switch o := o.(type) {
		case *localv1.LocalVolume:
			o.Spec.NodeSelector = selector
		case *localv1alpha1.LocalVolumeSet:
			o.Spec.NodeSelector = selector
		}
	}
}

// withDeviceCount sets a LocalVolumeSet's status.totalProvisionedDeviceCount.
func withDeviceCount(n int) ownerOption {
	return func(o ownerObject) {
		count := int32(n)
		o.(*localv1alpha1.LocalVolumeSet).Status.TotalProvisionedDeviceCount = &count
	}
}

// withConditions sets an owner's status.conditions.
func withConditions(conditions ...metav1.Condition) ownerOption {
	return func(o ownerObject) {
		switch o := o.(type) {
		case *localv1.LocalVolume:
			o.Status.Conditions = conditions
		case *localv1alpha1.LocalVolumeSet:
			o.Status.Conditions = conditions
		}
	}
}

// selectorIn selects the nodes whose label key is one of values.
func selectorIn(key string, values ...string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}},
	}}}
}

// --- volumes ---

// newPV is a local PV owned by the kind's test owner, on testNode,
// Available, reclaim policy Delete, with the node agent's finalizer.
func newPV(name, kind string, opts ...testutil.VolumeOption) *corev1.PersistentVolume {
	return testutil.NewPV(name, append([]testutil.VolumeOption{
		testutil.WithLabels(ownerLabels(keyOf(kind))),
		testutil.WithFinalizers(local.SymlinkDeleterFinalizer),
		testutil.WithLocalPath("/mnt/local-storage/local/" + name),
		testutil.WithReclaimPolicy(corev1.PersistentVolumeReclaimDelete),
		testutil.WithClass("local"),
		onNode(testNode),
	}, opts...)...)
}

// onNode puts the PV on node, by label and node affinity, as the node
// agent does.
func onNode(node string) testutil.VolumeFunc {
	return func(pv *corev1.PersistentVolume) {
		pv.Labels[local.NodeLabel] = node
		testutil.WithNodeAffinity(local.NodeLabel, node)(pv)
	}
}

// boundTo binds the PV to claim namespace/name, as the binder does.
func boundTo(namespace, name string) testutil.VolumeFunc {
	return testutil.BoundTo(namespace, name, types.UID("uid-claim-"+name))
}

// releasedFrom is a PV whose claim namespace/name was deleted, of reclaim
// policy p: it keeps the claimRef.
func releasedFrom(namespace, name string, p corev1.PersistentVolumeReclaimPolicy) testutil.VolumeFunc {
	return func(pv *corev1.PersistentVolume) {
		testutil.ReleasedFrom(namespace, name, types.UID("uid-claim-"+name))(pv)
		pv.Spec.PersistentVolumeReclaimPolicy = p
	}
}

// --- nodes ---

// newNode is a Node labelled with its name as the node agent's PVs name
// it, and with labels (key, value...).
func newNode(name string, labels ...string) *corev1.Node {
	node := testutil.NewNode(name, testutil.WithLabel(local.NodeLabel, name))
	for i := 0; i+1 < len(labels); i += 2 {
		node.Labels[labels[i]] = labels[i+1]
	}
	return node
}
