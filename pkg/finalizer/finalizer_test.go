package finalizer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func object(finalizers ...string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Name: "obj", Namespace: "ns", UID: "uid-1", ResourceVersion: "42", Finalizers: finalizers}
}

type sentPatch struct {
	Metadata struct {
		ResourceVersion string             `json:"resourceVersion"`
		UID             string             `json:"uid"`
		Finalizers      *[]string          `json:"finalizers"`
		Annotations     map[string]*string `json:"annotations"`
	} `json:"metadata"`
}

// recorder is a Target that keeps what it was sent and answers err.
type recorder struct {
	sent []sentPatch
	raw  []string
	err  error
}

func (r *recorder) Kind() string { return "Thing" }

func (r *recorder) Write(ctx context.Context, obj metav1.Object, c Change) error {
	return Func(r.Kind(), r.Patch).Write(ctx, obj, c)
}

func (r *recorder) Patch(_ context.Context, namespace, name string, p []byte) error {
	var got sentPatch
	if err := json.Unmarshal(p, &got); err != nil {
		return err
	}
	r.sent = append(r.sent, got)
	r.raw = append(r.raw, string(p))
	return r.err
}

func TestAddKeepsOtherFinalizersAndPinsVersionAndUID(t *testing.T) {
	to := &recorder{}
	wrote, err := Add(context.Background(), to, object("other"), "mine")
	if err != nil || !wrote {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
	got := to.sent[0].Metadata
	if got.ResourceVersion != "42" || got.UID != "uid-1" {
		t.Errorf("precondition: got resourceVersion %q uid %q", got.ResourceVersion, got.UID)
	}
	if f := *got.Finalizers; len(f) != 2 || f[0] != "other" || f[1] != "mine" {
		t.Errorf("finalizers: %v", f)
	}
}

func TestAddWritesNothingWhenPresent(t *testing.T) {
	to := &recorder{}
	if wrote, err := Add(context.Background(), to, object("mine"), "mine"); wrote || err != nil || len(to.sent) != 0 {
		t.Errorf("wrote %v, err %v, sent %v", wrote, err, to.raw)
	}
}

func TestRemovingTheLastFinalizerWritesAnEmptyList(t *testing.T) {
	to := &recorder{}
	if _, err := Remove(context.Background(), to, object("mine"), "mine"); err != nil {
		t.Fatal(err)
	}
	if to.raw[0] != `{"metadata":{"finalizers":[],"resourceVersion":"42","uid":"uid-1"}}` {
		t.Errorf("got %s", to.raw[0])
	}
}

func TestRemoveDoesNotChangeTheObject(t *testing.T) {
	obj := object("a", "mine", "b")
	to := &recorder{}
	if _, err := Remove(context.Background(), to, obj, "mine"); err != nil {
		t.Fatal(err)
	}
	if got := *to.sent[0].Metadata.Finalizers; len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("finalizers: %v", got)
	}
	if len(obj.Finalizers) != 3 {
		t.Errorf("the object was changed: %v", obj.Finalizers)
	}
}

func TestRemoveWritesNothingWhenAbsent(t *testing.T) {
	to := &recorder{}
	if wrote, err := Remove(context.Background(), to, object("other"), "mine"); wrote || err != nil || len(to.sent) != 0 {
		t.Errorf("wrote %v, err %v", wrote, err)
	}
}

func TestTwoFinalizersGoInOneWrite(t *testing.T) {
	to := &recorder{}
	wrote, err := Write(context.Background(), to, object("a", "b", "c"), Change{Remove: []string{"a", "c"}})
	if err != nil || !wrote || len(to.sent) != 1 {
		t.Fatalf("wrote %v, err %v, sent %d", wrote, err, len(to.sent))
	}
	if got := *to.sent[0].Metadata.Finalizers; len(got) != 1 || got[0] != "b" {
		t.Errorf("finalizers: %v", got)
	}
}

func TestMarkerAnnotationChangesWithTheFinalizer(t *testing.T) {
	to := &recorder{}
	if _, err := Add(context.Background(), to, object(), "mine", WithAnnotation("managed-by", "us")); err != nil {
		t.Fatal(err)
	}
	if v := to.sent[0].Metadata.Annotations["managed-by"]; v == nil || *v != "us" {
		t.Errorf("annotation on add: %v", to.raw[0])
	}
	marked := object("mine")
	marked.Annotations = map[string]string{"managed-by": "us", "other": "x"}
	if _, err := Remove(context.Background(), to, marked, "mine", WithoutAnnotation("managed-by"), WithoutAnnotation("absent")); err != nil {
		t.Fatal(err)
	}
	got := to.sent[1].Metadata.Annotations
	if v, ok := got["managed-by"]; !ok || v != nil || len(got) != 1 {
		t.Errorf("annotations on remove: %s", to.raw[1])
	}
}

func TestAnnotationAloneIsPinnedToo(t *testing.T) {
	to := &recorder{}
	wrote, err := Write(context.Background(), to, object(), Change{SetAnnotations: map[string]string{"k": "v"}})
	if err != nil || !wrote {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
	if got := to.sent[0].Metadata; got.Finalizers != nil || got.ResourceVersion != "42" {
		t.Errorf("got %s", to.raw[0])
	}
}

func TestNoVersionNoWrite(t *testing.T) {
	obj := object()
	obj.ResourceVersion = ""
	to := &recorder{}
	if _, err := Add(context.Background(), to, obj, "mine"); err == nil || len(to.sent) != 0 {
		t.Error("a patch without a resourceVersion precondition must be refused")
	}
}

func TestConflictAndNotFoundStayRecognisable(t *testing.T) {
	for _, apiErr := range []error{
		apierrors.NewConflict(schema.GroupResource{Resource: "things"}, "obj", errors.New("changed")),
		apierrors.NewNotFound(schema.GroupResource{Resource: "things"}, "obj"),
	} {
		_, err := Add(context.Background(), &recorder{err: apiErr}, object(), "mine")
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			t.Errorf("%v lost its API reason", err)
		}
	}
}

func TestForbiddenNamesTheMissingRule(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "things"}, "obj", errors.New("no"))
	to := Func("Thing", func(context.Context, string, string, []byte) error { return forbidden })
	_, err := Add(context.Background(), to, object(), "mine")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "must allow patch on Thing") {
		t.Errorf("got %v", err)
	}
}
