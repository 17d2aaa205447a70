package testutil

import (
	"maps"
	"time"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The builders (NewClaim, NewPV, NewClass, NewPod, NewNode, NewCSINode,
// NewSecret, NewSnapshot) make an object a test starts from: named, with
// the UID "uid-<name>", and with what the kind needs to be valid; their
// options change the rest. An option of metadata (MetaOption) serves every
// kind; one of a spec serves the kinds that have that field. A test's own
// options are ClaimFunc, VolumeFunc... values.

// Objects lists objs as runtime.Objects, as a fake clientset takes them.
func Objects[T runtime.Object](objs ...T) []runtime.Object {
	out := make([]runtime.Object, 0, len(objs))
	for _, obj := range objs {
		out = append(out, obj)
	}
	return out
}

// MetaOption changes the metadata of an object of any kind.
type MetaOption func(*metav1.ObjectMeta)

// The options of each kind, which a MetaOption is too.
type (
	ClaimOption interface {
		applyToClaim(*v1.PersistentVolumeClaim)
	}
	VolumeOption   interface{ applyToVolume(*v1.PersistentVolume) }
	ClassOption    interface{ applyToClass(*storagev1.StorageClass) }
	SnapshotOption interface{ applyToSnapshot(*snapv1.VolumeSnapshot) }
	PodOption      interface{ applyToPod(*v1.Pod) }
)

// A test's own options of each kind.
type (
	ClaimFunc    func(*v1.PersistentVolumeClaim)
	VolumeFunc   func(*v1.PersistentVolume)
	ClassFunc    func(*storagev1.StorageClass)
	SnapshotFunc func(*snapv1.VolumeSnapshot)
	PodFunc      func(*v1.Pod)
)

func (f ClaimFunc) applyToClaim(c *v1.PersistentVolumeClaim)    { f(c) }
func (f VolumeFunc) applyToVolume(pv *v1.PersistentVolume)      { f(pv) }
func (f ClassFunc) applyToClass(c *storagev1.StorageClass)      { f(c) }
func (f SnapshotFunc) applyToSnapshot(s *snapv1.VolumeSnapshot) { f(s) }
func (f PodFunc) applyToPod(p *v1.Pod)                          { f(p) }

func (o MetaOption) applyToClaim(c *v1.PersistentVolumeClaim) { o(&c.ObjectMeta) }
func (o MetaOption) applyToVolume(pv *v1.PersistentVolume)    { o(&pv.ObjectMeta) }
func (o MetaOption) applyToClass(c *storagev1.StorageClass)   { o(&c.ObjectMeta) }
func (o MetaOption) applyToSnapshot(s *snapv1.VolumeSnapshot) { o(&s.ObjectMeta) }
func (o MetaOption) applyToPod(p *v1.Pod)                     { o(&p.ObjectMeta) }

// objectMeta is what every builder starts from.
func objectMeta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name)}
}

func applyMeta(m *metav1.ObjectMeta, opts []MetaOption) {
	for _, o := range opts {
		o(m)
	}
}

// WithUID gives the object another UID than "uid-<name>".
func WithUID(uid types.UID) MetaOption {
	return func(m *metav1.ObjectMeta) { m.UID = uid }
}

// WithResourceVersion gives the object a resourceVersion, for a test that
// puts it in a cache itself: the fake API server gives every object it
// stores one of its own.
func WithResourceVersion(resourceVersion string) MetaOption {
	return func(m *metav1.ObjectMeta) { m.ResourceVersion = resourceVersion }
}

// WithFinalizers adds finalizers after those the object has.
func WithFinalizers(finalizers ...string) MetaOption {
	return func(m *metav1.ObjectMeta) { m.Finalizers = append(m.Finalizers, finalizers...) }
}

// WithAnnotation sets one annotation.
func WithAnnotation(key, value string) MetaOption {
	return WithAnnotations(map[string]string{key: value})
}

// WithAnnotations sets annotations, besides those the object has.
func WithAnnotations(annotations map[string]string) MetaOption {
	return func(m *metav1.ObjectMeta) { m.Annotations = merged(m.Annotations, annotations) }
}

// WithLabel sets one label.
func WithLabel(key, value string) MetaOption {
	return WithLabels(map[string]string{key: value})
}

// WithLabels sets labels, besides those the object has.
func WithLabels(labels map[string]string) MetaOption {
	return func(m *metav1.ObjectMeta) { m.Labels = merged(m.Labels, labels) }
}

// WithOwner adds an owner reference.
func WithOwner(owner metav1.OwnerReference) MetaOption {
	return func(m *metav1.ObjectMeta) { m.OwnerReferences = append(m.OwnerReferences, owner) }
}

// CreatedAt sets the creationTimestamp, which the fake API server keeps
// when an object it stores has one.
func CreatedAt(at time.Time) MetaOption {
	return func(m *metav1.ObjectMeta) { m.CreationTimestamp = metav1.NewTime(at) }
}

// Deleting is an object being deleted since now, as an object with
// finalizers is after a delete.
func Deleting() MetaOption { return DeletingSince(time.Now()) }

// DeletingSince is an object being deleted since at.
func DeletingSince(at time.Time) MetaOption {
	return func(m *metav1.ObjectMeta) {
		t := metav1.NewTime(at)
		m.DeletionTimestamp = &t
	}
}

func merged(into, from map[string]string) map[string]string {
	if into == nil {
		into = make(map[string]string, len(from))
	}
	maps.Copy(into, from)
	return into
}
