package reconcile

import (
	"testing"

	"k8s.io/client-go/tools/cache"
)

func TestHandlerPassesTheNewObjectAndUnwrapsTombstones(t *testing.T) {
	var changed, deleted []interface{}
	h := Handler(func(obj interface{}) { changed = append(changed, obj) }, func(obj interface{}) { deleted = append(deleted, obj) })
	h.OnAdd("added", false)
	h.OnUpdate("old", "new")
	h.OnDelete("gone")
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/missed", Obj: "missed"})
	if len(changed) != 2 || changed[0] != "added" || changed[1] != "new" {
		t.Errorf("changed %v", changed)
	}
	if len(deleted) != 2 || deleted[0] != "gone" || deleted[1] != "missed" {
		t.Errorf("deleted %v", deleted)
	}
}

func TestHandlerWithoutDeleteIgnoresDeletes(t *testing.T) {
	h := Handler(func(interface{}) {}, nil)
	h.OnDelete("gone") // must not panic
}

func TestObjectNameLogValues(t *testing.T) {
	got := ObjectNameLogValues("PVC")(cache.ObjectName{Namespace: "apps", Name: "db"})
	if len(got) != 2 || got[0] != "PVC" {
		t.Fatalf("got %v", got)
	}
	if ref, ok := got[1].(interface{ String() string }); !ok || ref.String() != "apps/db" {
		t.Errorf("got %v", got[1])
	}
}
