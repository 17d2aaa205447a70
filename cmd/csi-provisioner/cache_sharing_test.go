package main

import (
	"reflect"
	"testing"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/client-go/kubernetes/scheme"
)

// decoded is obj as an informer gets it: decoded from the API's protobuf,
// every string and map an allocation of its own.
func decoded[T k8sruntime.Object](t *testing.T, obj T) T {
	t.Helper()
	info, _ := k8sruntime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), k8sruntime.ContentTypeProtobuf)
	data, err := k8sruntime.Encode(scheme.Codecs.EncoderForVersion(info.Serializer, v1.SchemeGroupVersion), obj)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out.(T)
}

// cachedPair is pair i of the memory benchmark as the caches keep it.
func cachedPair(t *testing.T, i int) (*v1.PersistentVolumeClaim, *v1.PersistentVolume) {
	t.Helper()
	c, pv := footprintPair(i)
	claim, err := trimForCache(decoded(t, &c))
	if err != nil {
		t.Fatal(err)
	}
	volume, err := trimForCache(decoded(t, &pv))
	if err != nil {
		t.Fatal(err)
	}
	return claim.(*v1.PersistentVolumeClaim), volume.(*v1.PersistentVolume)
}

// same tells whether two maps, slices or pointers are one.
func same(a, b any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestCachedClaimsShareWhatRepeats(t *testing.T) {
	a, _ := cachedPair(t, 1)
	b, _ := cachedPair(t, 2)
	for what, shared := range map[string]bool{
		"annotations": same(a.Annotations, b.Annotations),
		"finalizers":  same(a.Finalizers, b.Finalizers),
		"requests":    same(a.Spec.Resources.Requests, b.Spec.Resources.Requests),
		"class":       same(a.Spec.StorageClassName, b.Spec.StorageClassName),
		"volume mode": same(a.Spec.VolumeMode, b.Spec.VolumeMode),
		"access":      same(a.Spec.AccessModes, b.Spec.AccessModes),
		"namespace":   sameString(a.Namespace, b.Namespace),
		"phase":       sameString(string(a.Status.Phase), string(b.Status.Phase)),
	} {
		if !shared {
			t.Errorf("two cached claims hold a copy each of their %s", what)
		}
	}
	if sameString(string(a.UID), string(b.UID)) || a.Spec.VolumeName == b.Spec.VolumeName {
		t.Error("what is each claim's own is not")
	}
}

func TestCachedVolumesShareWhatRepeats(t *testing.T) {
	_, a := cachedPair(t, 1)
	_, b := cachedPair(t, 2)
	for what, shared := range map[string]bool{
		"annotations":    same(a.Annotations, b.Annotations),
		"finalizers":     same(a.Finalizers, b.Finalizers),
		"capacity":       same(a.Spec.Capacity, b.Spec.Capacity),
		"volume mode":    same(a.Spec.VolumeMode, b.Spec.VolumeMode),
		"access":         same(a.Spec.AccessModes, b.Spec.AccessModes),
		"class":          sameString(a.Spec.StorageClassName, b.Spec.StorageClassName),
		"driver":         sameString(a.Spec.CSI.Driver, b.Spec.CSI.Driver),
		"claim's kind":   sameString(a.Spec.ClaimRef.Kind, b.Spec.ClaimRef.Kind),
		"claim's space":  sameString(a.Spec.ClaimRef.Namespace, b.Spec.ClaimRef.Namespace),
		"reclaim policy": sameString(string(a.Spec.PersistentVolumeReclaimPolicy), string(b.Spec.PersistentVolumeReclaimPolicy)),
	} {
		if !shared {
			t.Errorf("two cached PVs hold a copy each of their %s", what)
		}
	}
}

// Sharing changes no content: the cached objects are what the trims alone
// make of them.
func TestSharingChangesNoContent(t *testing.T) {
	c, pv := footprintPair(3)
	claim, volume := cachedPair(t, 3)
	c.ManagedFields, pv.ManagedFields = nil, nil
	c.Status = v1.PersistentVolumeClaimStatus{Phase: c.Status.Phase}
	pv.Spec.CSI.VolumeAttributes = nil
	pv.Status = v1.PersistentVolumeStatus{Phase: pv.Status.Phase}
	// Decoding sets the kind, as it does for the informers.
	c.TypeMeta, pv.TypeMeta = claim.TypeMeta, volume.TypeMeta
	if !equality.Semantic.DeepEqual(claim, &c) {
		t.Errorf("cached claim differs:\n%s", diff.Diff(&c, claim))
	}
	if !equality.Semantic.DeepEqual(volume, &pv) {
		t.Errorf("cached PV differs:\n%s", diff.Diff(&pv, volume))
	}
}

// The informer may transform an object twice (a streamed list goes through
// the transform in the reflector and again in the queue).
func TestTheTransformGivesTheSameObjectTwice(t *testing.T) {
	claim, volume := cachedPair(t, 4)
	once := claim.DeepCopy()
	again, err := trimForCache(claim)
	if err != nil || !equality.Semantic.DeepEqual(again, once) {
		t.Fatalf("a second pass changed the claim: %v\n%s", err, diff.Diff(once, again))
	}
	annotations := volume.Annotations
	if _, err := trimForCache(volume); err != nil || !same(volume.Annotations, annotations) {
		t.Fatalf("a second pass replaced the PV's shared annotations: %v", err)
	}
}

// Code that changes a cached object changes a deep copy, which shares
// nothing with the cache.
func TestACopyOfACachedClaimSharesNothing(t *testing.T) {
	a, _ := cachedPair(t, 5)
	b, _ := cachedPair(t, 6)
	before := b.DeepCopy()
	c := a.DeepCopy()
	c.Annotations["volume.kubernetes.io/selected-node"] = "node-1"
	c.Finalizers[0] = "changed"
	c.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("1Ti")
	*c.Spec.StorageClassName = "other"
	c.Spec.AccessModes[0] = v1.ReadWriteMany
	if !equality.Semantic.DeepEqual(b, before) {
		t.Fatalf("a change of a copy reached another cached claim:\n%s", diff.Diff(before, b))
	}
}
