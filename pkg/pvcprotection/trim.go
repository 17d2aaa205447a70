package pvcprotection

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TrimPod is a transform for the pod informer this controller uses. It keeps
// only what the protection rules, the index and the cache's version tracking
// read, so that caching every pod of a big cluster stays small. Set it only
// on an informer no other component reads: the objects it stores are no
// longer complete pods.
//
// Kept: name, namespace, uid, resourceVersion (the indexer records the
// version of the objects written to it, and the freshness check compares
// against it), deletionTimestamp, deletionGracePeriodSeconds, spec.nodeName,
// status.phase, and the volumes that name a claim: a persistentVolumeClaim
// volume with its claim name, or an ephemeral volume as an empty marker (its
// claim name derives from the pod and volume names). Anything that is not a
// *v1.Pod, such as a cache.DeletedFinalStateUnknown tombstone, passes
// through.
func TrimPod(obj interface{}) (interface{}, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return obj, nil
	}
	trimmed := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:                       pod.Name,
			Namespace:                  pod.Namespace,
			UID:                        pod.UID,
			ResourceVersion:            pod.ResourceVersion,
			DeletionTimestamp:          pod.DeletionTimestamp,
			DeletionGracePeriodSeconds: pod.DeletionGracePeriodSeconds,
		},
		Spec:   v1.PodSpec{NodeName: pod.Spec.NodeName},
		Status: v1.PodStatus{Phase: pod.Status.Phase},
	}
	claims := 0
	for i := range pod.Spec.Volumes {
		if vs := &pod.Spec.Volumes[i].VolumeSource; vs.PersistentVolumeClaim != nil || vs.Ephemeral != nil {
			claims++
		}
	}
	if claims == 0 {
		return trimmed, nil
	}
	trimmed.Spec.Volumes = make([]v1.Volume, 0, claims)
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		switch {
		case vol.PersistentVolumeClaim != nil:
			trimmed.Spec.Volumes = append(trimmed.Spec.Volumes, v1.Volume{
				Name: vol.Name,
				VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{
					ClaimName: vol.PersistentVolumeClaim.ClaimName,
				}},
			})
		case vol.Ephemeral != nil:
			trimmed.Spec.Volumes = append(trimmed.Spec.Volumes, v1.Volume{
				Name:         vol.Name,
				VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}},
			})
		}
	}
	return trimmed, nil
}
