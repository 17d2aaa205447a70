package pvcprotection

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/storage/ephemeral"
)

// podClaimIndex indexes pods by the "namespace/name" of every claim they
// reference, directly or as a generic ephemeral volume, so that a claim's
// possible users are found without scanning all pods.
const podClaimIndex = "pvc-protection-claims"

// podClaimKeys is the index function of podClaimIndex. It indexes every
// reference; podBlocks decides which ones count.
func podClaimKeys(obj interface{}) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, nil
	}
	if len(pod.Spec.Volumes) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(pod.Spec.Volumes))
	for i := range pod.Spec.Volumes {
		name := claimNameOf(pod, &pod.Spec.Volumes[i])
		if name == "" {
			continue
		}
		key := indexKey(pod.Namespace, name)
		// A pod has few volumes: a linear search is cheaper than a set.
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	return keys, nil
}

// indexKey is the key of podClaimIndex for the claim namespace/name.
func indexKey(namespace, name string) string {
	return namespace + "/" + name
}

// claimNameOf is the claim a pod volume refers to, "" for other volumes.
func claimNameOf(pod *v1.Pod, vol *v1.Volume) string {
	switch {
	case vol.PersistentVolumeClaim != nil:
		return vol.PersistentVolumeClaim.ClaimName
	case vol.Ephemeral != nil:
		return ephemeral.VolumeClaimName(pod, vol)
	}
	return ""
}
