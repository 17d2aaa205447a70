package pvcprotection

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// BenchmarkSyncUnusedClaim: a deleting claim no pod uses, with a pod cache
// the freshness check finds fresh; the cost is the decision and the update
// call (answered at once by a reactor).
func BenchmarkSyncUnusedClaim(b *testing.B) {
	claim := newClaim("data", testutil.Deleting())
	pods := []*v1.Pod{newPod("other", testNode, "other"), newPod("pending", "", "data")}
	e := newEnv(b, setup{claims: []*v1.PersistentVolumeClaim{claim}, pods: pods})
	testutil.AnswerWith(e.Client, "update", "persistentvolumeclaims", claim)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.ctrl.sync(ctx, key("data")); err != nil {
			b.Fatal(err)
		}
		// Undo the release so every round decides again.
		e.ctrl.forget(key("data"))
		e.Client.ClearActions()
	}
}

// BenchmarkSyncHeldClaim: a deleting claim a pod in the cache uses; no
// request at all.
func BenchmarkSyncHeldClaim(b *testing.B) {
	e := newEnv(b, setup{
		claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())},
		pods:   []*v1.Pod{newPod("p1", testNode, "data"), newPod("p2", testNode, "data", "other")},
	})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.ctrl.sync(ctx, key("data")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFreshCoveredClaim: what each further claim of a batch costs once
// its namespace's check is done.
func BenchmarkFreshCoveredClaim(b *testing.B) {
	e := newEnv(b, setup{cacheRV: "25", realFreshness: true})
	api := &apiServer{current: "20"}
	api.install(e.Client)
	ctx := context.Background()
	seen := e.ctrl.stamps.now()
	if _, err := e.ctrl.fresh.Fresh(ctx, testNS, seen); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, err := e.ctrl.fresh.Fresh(ctx, testNS, seen); err != nil || !got.ready {
			b.Fatal(got, err)
		}
	}
	b.StopTimer()
	if api.probes.Load() != 1 {
		b.Fatalf("%d probes", api.probes.Load())
	}
}

// BenchmarkPodClaimKeys: the index function over a pod with several
// volumes, run for every pod event.
func BenchmarkPodClaimKeys(b *testing.B) {
	pod := newPod("web", testNode, "a", "b", "c", "d")
	pod.Spec.Volumes = append(pod.Spec.Volumes,
		v1.Volume{Name: "cache", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}},
		v1.Volume{Name: "config", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
		v1.Volume{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if keys, _ := podClaimKeys(pod); len(keys) != 5 {
			b.Fatal(keys)
		}
	}
}

func BenchmarkTrimPod(b *testing.B) {
	pod := newPod("web", testNode, "a", "b", "c")
	pod.Spec.Containers = []v1.Container{{Name: "c", Image: "busybox"}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := TrimPod(pod); err != nil {
			b.Fatal(err)
		}
	}
}
