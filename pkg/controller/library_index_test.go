package controller

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Claim protection reads the library's index instead of its own: it must be
// there, under this name, by claim UID.
func TestTheLibraryIndexesClaimsByUID(t *testing.T) {
	claim := newClaim("data", "1Gi")
	claim.Spec.VolumeName = "pvc-1"
	l := newLiveLibrary(t, []runtime.Object{claim, newClass(nil)})
	indexer := l.factory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer()
	if _, ok := indexer.GetIndexers()[LibraryClaimUIDIndex]; !ok {
		t.Fatalf("the library registered no index %q: %v", LibraryClaimUIDIndex, indexer.GetIndexers())
	}
	l.start(t)
	objs, err := indexer.ByIndex(LibraryClaimUIDIndex, string(claim.UID))
	if err != nil || len(objs) != 1 || objs[0].(*v1.PersistentVolumeClaim).Name != claim.Name {
		t.Fatalf("claims of UID %s: %v, %v", claim.UID, objs, err)
	}
}
