package pvcprotection

import (
	v1 "k8s.io/api/core/v1"
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
		if !containsString(keys, key) {
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
		return ephemeralClaimName(pod, vol)
	}
	return ""
}

// containsString is a linear search: a pod has few volumes, and this is
// cheaper than a set for them.
func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
