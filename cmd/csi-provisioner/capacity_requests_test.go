package main

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

func sizedClaim(name, class, size string, phase v1.PersistentVolumeClaimPhase) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}},
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: phase},
	}
}

// The largest request of a class is that of its claims the scheduler may
// still place, and follows them as they are bound.
func TestLargestPlaceableRequest(t *testing.T) {
	prebound := sizedClaim("prebound", "fast", "30Gi", v1.ClaimPending)
	prebound.Spec.VolumeName = "pv-1"
	deleting := sizedClaim("deleting", "fast", "40Gi", v1.ClaimPending)
	deleting.DeletionTimestamp = &metav1.Time{}
	deleting.Finalizers = []string{"kubernetes.io/pvc-protection"}
	beta := sizedClaim("beta", "", "7Gi", "")
	beta.Spec.StorageClassName = nil
	beta.Annotations = map[string]string{v1.BetaStorageClassAnnotation: "fast"}
	client := fake.NewClientset([]runtime.Object{
		sizedClaim("small", "fast", "5Gi", v1.ClaimPending),
		sizedClaim("large", "fast", "10Gi", v1.ClaimPending),
		sizedClaim("bound", "fast", "50Gi", v1.ClaimBound),
		sizedClaim("lost", "fast", "60Gi", v1.ClaimLost),
		prebound, deleting, beta,
		sizedClaim("other", "slow", "20Gi", ""),
		sizedClaim("done", "done", "1Gi", v1.ClaimBound),
	}...)
	factory := newInformerFactory(client)
	largest, err := largestPlaceableRequest(factory.Core().V1().PersistentVolumeClaims())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	for class, want := range map[string]int64{"fast": 10 << 30, "slow": 20 << 30, "done": -1, "none": -1} {
		got, known := largest(class)
		if (want < 0 && known) || (want >= 0 && (!known || got != want)) {
			t.Errorf("class %s: %d (known %v), want %d", class, got, known, want)
		}
	}

	bound := sizedClaim("large", "fast", "10Gi", v1.ClaimBound)
	if _, err := client.CoreV1().PersistentVolumeClaims("default").Update(ctx, bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the bound claim out of fast's requests", func() bool {
		got, known := largest("fast")
		return known && got == 7<<30
	})
}
