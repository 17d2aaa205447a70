//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// finalizerHistory records, for every version of one object seen by a
// watch, how many times it carried a finalizer.
type finalizerHistory struct {
	mu       sync.Mutex
	versions map[string][]int // object name -> count per version, in order
}

func (h *finalizerHistory) record(name string, finalizers []string, finalizer string) {
	n := 0
	for _, f := range finalizers {
		if f == finalizer {
			n++
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.versions[name] = append(h.versions[name], n)
}

// changes returns the finalizer's count per version of the object, how
// often it came and went, and the largest number of copies any version
// carried.
func (h *finalizerHistory) changes(name string) (counts []int, added, removed, most int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	counts = slices.Clone(h.versions[name])
	for i, n := range counts {
		most = max(most, n)
		if i == 0 {
			continue
		}
		switch {
		case n > counts[i-1]:
			added++
		case n < counts[i-1]:
			removed++
		}
	}
	return counts, added, removed, most
}

// watchFinalizers records the finalizer's history on every object the watch
// reports until ctx ends.
func watchFinalizers(ctx context.Context, t *testing.T, w watch.Interface, finalizer string) *finalizerHistory {
	t.Helper()
	h := &finalizerHistory{versions: map[string][]int{}}
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				if obj, ok := ev.Object.(metav1.Object); ok && ev.Type != watch.Bookmark && ev.Type != watch.Error {
					h.record(obj.GetName(), obj.GetFinalizers(), finalizer)
				}
			}
		}
	}()
	return h
}

// With kube-controller-manager's protection controllers and the admission
// plugin on as well as ours, both sides handle the same finalizers. Neither
// may add one the other has, or add one back after it was removed: each
// finalizer is written once by admission and removed once.
func TestNoFinalizerFlappingWithKubeControllerManager(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Cluster: framework.ClusterOptions{
			KCMControllers: []string{framework.ControllerPVProtection, framework.ControllerPVCProtection},
		},
		Sidecar: framework.SidecarOptions{
			ExtraArgs:          []string{"--feature-gates=PVProtection=true,PVCProtection=true"},
			ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
		},
	})
	const ns = "coexist"
	createNamespace(ctx, t, s, ns)
	createStorageClass(ctx, t, s, "protected")

	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	claimWatch, err := s.Client().CoreV1().PersistentVolumeClaims(ns).Watch(watchCtx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	volumeWatch, err := s.Client().CoreV1().PersistentVolumes().Watch(watchCtx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claims := watchFinalizers(watchCtx, t, claimWatch, pvcProtection)
	volumes := watchFinalizers(watchCtx, t, volumeWatch, pvProtection)

	const n = 5
	var pvNames []string
	for i := range n {
		createClaim(ctx, t, s, ns, fmt.Sprintf("data-%d", i), "protected")
	}
	for i := range n {
		_, pv := waitForClaimBound(ctx, t, s, ns, fmt.Sprintf("data-%d", i))
		pvNames = append(pvNames, pv.Name)
		createScheduledPod(ctx, t, s, ns, fmt.Sprintf("app-%d", i), fmt.Sprintf("data-%d", i))
	}
	for i := range n {
		deleteClaim(ctx, t, s, ns, fmt.Sprintf("data-%d", i))
	}
	for i := range n {
		checkTerminating(ctx, t, s, ns, fmt.Sprintf("data-%d", i))
		forceDeletePod(ctx, t, s, ns, fmt.Sprintf("app-%d", i))
	}
	for i := range n {
		waitForClaimGone(ctx, t, s, ns, fmt.Sprintf("data-%d", i))
		waitForPVGone(ctx, t, s, pvNames[i])
	}
	stopWatching()

	check := func(kind string, h *finalizerHistory, name string) {
		counts, added, removed, most := h.changes(name)
		if len(counts) == 0 {
			t.Errorf("%s %s: the watch saw no version", kind, name)
			return
		}
		// Admission puts the finalizer on at creation, so the first
		// version has it; one of the two controllers removes it, at most
		// once (the removal of the last finalizer may show only as the
		// deletion).
		if counts[0] != 1 || added != 0 || removed > 1 || most != 1 {
			t.Errorf("%s %s: finalizer count per version %v: want 1 from creation, never added again or twice, removed at most once", kind, name, counts)
		}
	}
	for i := range n {
		check("PVC", claims, fmt.Sprintf("data-%d", i))
		check("PV", volumes, pvNames[i])
	}
	if slices.Contains(pvNames, "") {
		t.Error("a claim was bound to no PV")
	}
}
