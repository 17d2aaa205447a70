package snapshotprotection

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// pendingRestoreIndex indexes claims that still wait for a volume restored
// from a snapshot by the namespace/name of that snapshot. A claim being
// deleted stays in it while its provisioning-protection finalizer keeps it:
// its CreateVolume may have to be replayed from the snapshot.
const pendingRestoreIndex = "pending-restore-source"

func pendingRestoreKeys(obj interface{}) ([]string, error) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok || claim.Spec.VolumeName != "" {
		return nil, nil
	}
	source, ok := restoredSnapshot(claim)
	if !ok {
		return nil, nil
	}
	return []string{source.String()}, nil
}

// restoredSnapshot names the snapshot a claim restores, if any.
func restoredSnapshot(claim *v1.PersistentVolumeClaim) (cache.ObjectName, bool) {
	namespace, name, ok := provisionstate.RestoredSnapshot(claim)
	return cache.ObjectName{Namespace: namespace, Name: name}, ok
}
