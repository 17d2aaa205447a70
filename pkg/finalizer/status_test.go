package finalizer

import (
	"context"
	"strings"
	"testing"
)

// A status change is the status alone, pinned to the version and UID, and
// sent as given: a strategic-merge directive reaches the API server.
func TestAStatusPatchCarriesTheStatusAlonePinned(t *testing.T) {
	obj := object("other")
	obj.Annotations = map[string]string{"kept": "yes"}
	got, err := Patch(obj, Change{Status: map[string]any{
		"conditions": []any{map[string]any{"type": "Ready", "$patch": "delete"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"resourceVersion":"42","uid":"uid-1"},"status":{"conditions":[{"$patch":"delete","type":"Ready"}]}}`
	if string(got) != want {
		t.Errorf("patch\n%s\nwant\n%s", got, want)
	}
}

// The status subresource ignores the rest of a write: a change that would
// lose its metadata or spec there is refused, and nothing is sent.
func TestAStatusChangeWithAnythingElseIsRefused(t *testing.T) {
	status := map[string]any{"phase": "Bound"}
	for name, c := range map[string]Change{
		"finalizer":  {Add: []string{"mine"}, Status: status},
		"annotation": {SetAnnotations: map[string]string{"k": "v"}, Status: status},
		"label":      {RemoveLabels: []string{"k"}, Status: status},
		"spec":       {Spec: map[string]any{"persistentVolumeReclaimPolicy": "Retain"}, Status: status},
	} {
		to := &recorder{}
		if _, err := Write(context.Background(), to, object("mine"), c); err == nil || !strings.Contains(err.Error(), "status") || len(to.sent) != 0 {
			t.Errorf("%s: err %v, sent %q; want a refusal naming the status, and nothing sent", name, err, to.raw)
		}
	}
}

func TestAStatusPatchWithoutAVersionIsRefused(t *testing.T) {
	obj := object()
	obj.ResourceVersion = ""
	if _, err := Patch(obj, Change{Status: map[string]any{"phase": "Bound"}}); err == nil {
		t.Error("a status patch without a resourceVersion precondition was made")
	}
}
