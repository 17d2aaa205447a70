package main

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/util"
)

// placeableClaimClassIndex indexes the claims the scheduler may still
// place by their StorageClass.
const placeableClaimClassIndex = "capacity-placeable-claim-class"

// largestPlaceableRequest is capacity.Options.LargestRequest from the
// shared claim informer: the largest storage request of the class's claims
// that the scheduler may still place, those it compares with the
// CSIStorageCapacity objects. Bound claims are left out: the scheduler
// never compares them, and counting them would let one old, large volume
// decide for ever. It registers an index on the informer, so call it
// before the informer starts; each call then reads the class's pending
// claims only, few next to all.
func largestPlaceableRequest(claims coreinformers.PersistentVolumeClaimInformer) (func(class string) (int64, bool), error) {
	informer := claims.Informer()
	if err := informer.AddIndexers(cache.Indexers{placeableClaimClassIndex: placeableClaimClass}); err != nil {
		return nil, fmt.Errorf("capacity tracking claim index: %w", err)
	}
	indexer := informer.GetIndexer()
	return func(class string) (int64, bool) {
		items, err := indexer.ByIndex(placeableClaimClassIndex, class)
		if err != nil {
			return 0, false
		}
		largest, known := int64(0), false
		for _, item := range items {
			claim, ok := item.(*v1.PersistentVolumeClaim)
			if !ok {
				continue
			}
			if request, ok := claim.Spec.Resources.Requests[v1.ResourceStorage]; ok {
				largest, known = max(largest, request.Value()), true
			}
		}
		return largest, known
	}, nil
}

// placeableClaimClass is the class of a claim waiting for a volume: not
// Bound or Lost, not bound to a PV by name (the scheduler checks that PV,
// not capacity), not being deleted.
func placeableClaimClass(obj any) ([]string, error) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok || claim.DeletionTimestamp != nil || claim.Spec.VolumeName != "" {
		return nil, nil
	}
	if claim.Status.Phase == v1.ClaimBound || claim.Status.Phase == v1.ClaimLost {
		return nil, nil
	}
	class := util.GetPersistentVolumeClaimClass(claim)
	if class == "" {
		return nil, nil
	}
	return []string{class}, nil
}
