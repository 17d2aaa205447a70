package claimprotection

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const (
	// pendingCloneSourceIndex indexes claims that still wait for a clone
	// volume by the namespace/name of the claim they clone.
	pendingCloneSourceIndex = "pending-clone-source"
	// claimUIDIndex finds a claim by UID when the tracker reports on it.
	claimUIDIndex = "claim-uid"
)

// pendingCloneSourceKeys indexes a claim that clones another claim and has no
// volume yet.
func pendingCloneSourceKeys(obj interface{}) ([]string, error) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok || claim.Spec.VolumeName != "" {
		return nil, nil
	}
	namespace, name, ok := provisionstate.ClonedClaim(claim)
	if !ok {
		return nil, nil
	}
	return []string{cache.ObjectName{Namespace: namespace, Name: name}.String()}, nil
}

func claimUIDKeys(obj interface{}) ([]string, error) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return nil, nil
	}
	return []string{string(claim.UID)}, nil
}
