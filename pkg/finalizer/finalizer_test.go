package finalizer

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func object(finalizers ...string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Name: "obj", UID: "uid-1", ResourceVersion: "42", Finalizers: finalizers}
}

func decode(t *testing.T, p []byte) patchMetadata {
	t.Helper()
	var got metadataPatch
	if err := json.Unmarshal(p, &got); err != nil {
		t.Fatal(err)
	}
	return got.Metadata
}

func TestAddKeepsOtherFinalizersAndPinsTheVersion(t *testing.T) {
	p, err := AddPatch(object("other"), "mine")
	if err != nil {
		t.Fatal(err)
	}
	got := decode(t, p)
	if got.ResourceVersion != "42" || got.UID != "uid-1" {
		t.Errorf("precondition: got resourceVersion %q uid %q", got.ResourceVersion, got.UID)
	}
	if len(got.Finalizers) != 2 || got.Finalizers[0] != "other" || got.Finalizers[1] != "mine" {
		t.Errorf("finalizers: %v", got.Finalizers)
	}
}

func TestAddIsNothingWhenPresent(t *testing.T) {
	if p, err := AddPatch(object("mine"), "mine"); p != nil || err != nil {
		t.Errorf("got %s, %v", p, err)
	}
}

func TestRemoveLastFinalizerWritesAnEmptyList(t *testing.T) {
	p, err := RemovePatch(object("mine"), "mine")
	if err != nil {
		t.Fatal(err)
	}
	if string(p) != `{"metadata":{"resourceVersion":"42","uid":"uid-1","finalizers":[]}}` {
		t.Errorf("got %s", p)
	}
}

func TestRemoveDoesNotChangeTheObject(t *testing.T) {
	obj := object("a", "mine", "b")
	p, err := RemovePatch(obj, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, p).Finalizers; len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("finalizers: %v", got)
	}
	if len(obj.Finalizers) != 3 {
		t.Errorf("the object was changed: %v", obj.Finalizers)
	}
}

func TestRemoveIsNothingWhenAbsent(t *testing.T) {
	if p, err := RemovePatch(object("other"), "mine"); p != nil || err != nil {
		t.Errorf("got %s, %v", p, err)
	}
}

func TestNoVersionNoPatch(t *testing.T) {
	obj := object()
	obj.ResourceVersion = ""
	if _, err := AddPatch(obj, "mine"); err == nil {
		t.Error("a patch without a resourceVersion precondition must be refused")
	}
}
