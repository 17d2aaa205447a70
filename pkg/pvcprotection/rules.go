package pvcprotection

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/storage/ephemeral"
)

// podBlocks tells whether pod may still use claim, so that the claim must
// keep its finalizer. These are kube-controller-manager's current rules; see
// docs/volume-protection.md for why they differ from the original proposal.
func podBlocks(pod *v1.Pod, claim *v1.PersistentVolumeClaim) bool {
	if pod.Namespace != claim.Namespace {
		return false
	}
	// Kubelet only sees scheduled pods, and it refuses to start one whose
	// claim is being deleted; an unscheduled pod can never mount the claim.
	if pod.Spec.NodeName == "" {
		return false
	}
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		switch {
		case vol.PersistentVolumeClaim != nil:
			// Even a terminated pod blocks: its volume may still be mounted
			// or attached until kubelet has cleaned up and the pod is gone.
			if vol.PersistentVolumeClaim.ClaimName == claim.Name {
				return true
			}
		case vol.Ephemeral != nil:
			// The claim of a generic ephemeral volume is named after the
			// pod and volume, but a claim of that name that the pod does not
			// control is someone else's claim, and a shut-down pod no longer
			// uses its volume; letting the claim go also breaks a possible
			// cycle with a pod finalizer that waits for the claim.
			if ephemeral.VolumeClaimName(pod, vol) == claim.Name &&
				ephemeral.VolumeIsForPod(pod, claim) == nil && !podIsShutDown(pod) {
				return true
			}
		}
	}
	return false
}

// podIsShutDown tells whether kubelet is done with the pod (it asked for the
// final deletion with a zero grace period after unmounting everything) or
// the pod was force-deleted: it only waits for garbage collection.
func podIsShutDown(pod *v1.Pod) bool {
	return pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds == 0
}

// podIsTerminated tells whether the pod's containers have all finished.
func podIsTerminated(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}

// blockingPods returns the pods among objs that block claim, sorted by name
// so that the pod an event names is stable.
func blockingPods(objs []interface{}, claim *v1.PersistentVolumeClaim) []*v1.Pod {
	var out []*v1.Pod
	for _, obj := range objs {
		if pod, ok := obj.(*v1.Pod); ok && podBlocks(pod, claim) {
			out = append(out, pod)
		}
	}
	sortPods(out)
	return out
}

func sortPods(pods []*v1.Pod) {
	slices.SortFunc(pods, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
}
