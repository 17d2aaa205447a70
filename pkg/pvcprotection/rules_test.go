package pvcprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestRules(t *testing.T) {
	claim := newClaim("data")
	ephPod, ephClaim := ephemeralPod("web", "cache", true)
	_, strangerClaim := ephemeralPod("web", "cache", false)

	terminated := newPod("p", testNode, "data")
	terminated.Status.Phase = v1.PodSucceeded
	failed := newPod("p", testNode, "data")
	failed.Status.Phase = v1.PodFailed
	terminating := newPod("p", testNode, "data")
	terminating.DeletionTimestamp = ptr.To(metav1.Now())
	terminating.DeletionGracePeriodSeconds = ptr.To[int64](30)

	shutDown := ephPod.DeepCopy()
	shutDown.DeletionTimestamp = ptr.To(metav1.Now())
	shutDown.DeletionGracePeriodSeconds = ptr.To[int64](0)
	stillGraceful := ephPod.DeepCopy()
	stillGraceful.DeletionTimestamp = ptr.To(metav1.Now())
	stillGraceful.DeletionGracePeriodSeconds = ptr.To[int64](30)
	unscheduledEph := ephPod.DeepCopy()
	unscheduledEph.Spec.NodeName = ""
	// A claim that happens to have the name a PVC volume names directly is
	// used by it whatever owns it.
	shutDownDirect := newPod("p", testNode, "data")
	shutDownDirect.DeletionTimestamp = ptr.To(metav1.Now())
	shutDownDirect.DeletionGracePeriodSeconds = ptr.To[int64](0)
	otherNS := newPod("p", testNode, "data")
	otherNS.Namespace = "elsewhere"

	tests := []struct {
		name  string
		pod   *v1.Pod
		claim *v1.PersistentVolumeClaim
		want  bool
	}{
		{"scheduled pod blocks", newPod("p", testNode, "data"), claim, true},
		{"one of several volumes blocks", newPod("p", testNode, "x", "data", "y"), claim, true},
		{"succeeded scheduled pod still blocks", terminated, claim, true},
		{"failed scheduled pod still blocks", failed, claim, true},
		{"terminating pod blocks", terminating, claim, true},
		{"deleted-for-good pod with a PVC volume blocks until it is gone", shutDownDirect, claim, true},
		{"unscheduled pod does not block", newPod("p", "", "data"), claim, false},
		{"pod of another claim does not block", newPod("p", testNode, "other"), claim, false},
		{"pod without volumes does not block", newPod("p", testNode), claim, false},
		{"pod of another namespace does not block", otherNS, claim, false},
		{"ephemeral volume of its own claim blocks", ephPod, ephClaim, true},
		{"ephemeral volume of a claim it does not own does not block", ephPod, strangerClaim, false},
		{"shut-down pod's ephemeral volume does not block", shutDown, ephClaim, false},
		{"gracefully terminating pod's ephemeral volume blocks", stillGraceful, ephClaim, true},
		{"unscheduled pod's ephemeral volume does not block", unscheduledEph, ephClaim, false},
		{"ephemeral volume of another name does not block", ephPod, newClaim("web-other"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := podBlocks(tc.pod, tc.claim); got != tc.want {
				t.Errorf("podBlocks = %v, want %v", got, tc.want)
			}
			// The trimmed pod the informer stores must be judged alike.
			trimmed, _ := TrimPod(tc.pod)
			if got := podBlocks(trimmed.(*v1.Pod), tc.claim); got != tc.want {
				t.Errorf("podBlocks(trimmed) = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBlockingPodsAreSortedAndFiltered(t *testing.T) {
	claim := newClaim("data")
	objs := []interface{}{
		newPod("c", testNode, "data"),
		newPod("a", "", "data"),
		newPod("b", testNode, "data"),
		"not a pod",
	}
	got := blockingPods(objs, claim)
	if len(got) != 2 || got[0].Name != "b" || got[1].Name != "c" {
		t.Fatalf("blockers = %v", podNamesOf(got))
	}
}

func podNamesOf(pods []*v1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
