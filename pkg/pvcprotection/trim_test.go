package pvcprotection

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

func TestTrimPodKeepsOnlyWhatTheRulesRead(t *testing.T) {
	now := metav1.Now()
	full := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "p", Namespace: testNS, UID: "u", ResourceVersion: "42",
			DeletionTimestamp: &now, DeletionGracePeriodSeconds: ptr.To[int64](30),
			Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"big": "value"},
			OwnerReferences: []metav1.OwnerReference{{Name: "rs", UID: "rs-uid"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		},
		Spec: v1.PodSpec{
			NodeName:   testNode,
			Containers: []v1.Container{{Name: "c", Image: "busybox", Env: []v1.EnvVar{{Name: "X", Value: "y"}}}},
			Volumes: []v1.Volume{
				{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "claim", ReadOnly: true}}},
				{Name: "config", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
				{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{
					VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{Spec: v1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("fast")}},
				}}},
			},
		},
		Status: v1.PodStatus{Phase: v1.PodRunning, PodIP: "10.0.0.1", Conditions: []v1.PodCondition{{Type: v1.PodReady}}},
	}
	want := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "p", Namespace: testNS, UID: types.UID("u"), ResourceVersion: "42",
			DeletionTimestamp: &now, DeletionGracePeriodSeconds: ptr.To[int64](30),
		},
		Spec: v1.PodSpec{
			NodeName: testNode,
			Volumes: []v1.Volume{
				{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}},
				{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}},
			},
		},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	got, err := TrimPod(full.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("trimmed:\n%#v\nwant:\n%#v", got, want)
	}
	// Trimming a trimmed pod changes nothing.
	again, _ := TrimPod(got)
	if !reflect.DeepEqual(again, want) {
		t.Error("TrimPod is not idempotent")
	}
	// The index sees the same claims.
	before, _ := podClaimKeys(full)
	after, _ := podClaimKeys(got)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("index keys %v before trimming, %v after", before, after)
	}
}

func TestTrimPodPassesOtherObjectsThrough(t *testing.T) {
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: newPod("p", testNode)}
	got, err := TrimPod(tombstone)
	if err != nil || !reflect.DeepEqual(got, tombstone) {
		t.Fatalf("got %#v, %v", got, err)
	}
}

func TestPodWithoutClaimsKeepsNoVolumes(t *testing.T) {
	pod := newPod("p", testNode)
	pod.Spec.Volumes = []v1.Volume{{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	got, _ := TrimPod(pod)
	if vols := got.(*v1.Pod).Spec.Volumes; vols != nil {
		t.Fatalf("volumes %v", vols)
	}
}

func TestIndexKeys(t *testing.T) {
	pod := newPod("web", testNode, "a", "b", "a")
	pod.Spec.Volumes = append(pod.Spec.Volumes,
		v1.Volume{Name: "cache", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}},
		v1.Volume{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})
	got, _ := podClaimKeys(pod)
	want := []string{"ns/a", "ns/b", "ns/web-cache"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	if keys, _ := podClaimKeys("junk"); keys != nil {
		t.Errorf("keys of a non-pod: %v", keys)
	}
}
