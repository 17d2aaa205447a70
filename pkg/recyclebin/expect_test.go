package recyclebin

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// expectOneWritePinnedTo checks that the API server changed the PV once,
// by patches pinned to before's resourceVersion and UID: a patch sent from
// a copy the cache had not yet updated fails on its pin and changes
// nothing.
func (e *env) expectOneWritePinnedTo(t *testing.T, before *v1.PersistentVolume) {
	t.Helper()
	e.Eventually(t, "the watch to see the write", func() bool { return e.changed.of(before.Name) > 0 })
	patches, writes := e.volumePatches(), e.writes("persistentvolumes")
	if n := e.changed.of(before.Name); n != 1 || len(patches) == 0 || len(patches) != len(writes) {
		t.Fatalf("%d changes to the PV by %v; want one patch", n, writes)
	}
	for _, p := range patches {
		if pin := pinOf(t, p); pin.ResourceVersion != before.ResourceVersion || pin.UID != before.UID {
			t.Errorf("patch %s is pinned to %q, %q; want the PV's version %q and UID %q", p.GetPatch(), pin.ResourceVersion, pin.UID, before.ResourceVersion, before.UID)
		}
	}
}

// pinOf reads the resourceVersion and UID a merge patch is pinned to.
func pinOf(t *testing.T, patch k8stesting.PatchActionImpl) testutil.Pin {
	t.Helper()
	if patch.GetPatchType() != types.MergePatchType {
		t.Fatalf("patch type %s; want a merge patch", patch.GetPatchType())
	}
	pin, err := testutil.PinOf(patch.GetPatch())
	if err != nil {
		t.Fatal(err)
	}
	return pin
}

// expectOnly checks that after is before with change made and a new
// resourceVersion: the write kept every other field.
func expectOnly(t *testing.T, before, after *v1.PersistentVolume, change volumeOption) {
	t.Helper()
	want := before.DeepCopy()
	change(want)
	want.ResourceVersion = after.ResourceVersion
	// The fake's field manager's bookkeeping, not the PV's content.
	want.ManagedFields = after.ManagedFields
	if !apiequality.Semantic.DeepEqual(want, after) {
		t.Errorf("the PV after the write differs from the one expected:\n%s", diffFields(t, want, after))
	}
}

// diffFields lists the fields, as path=value, that only want or only got
// has.
func diffFields(t *testing.T, want, got any) string {
	t.Helper()
	w, g := fields(t, want), fields(t, got)
	var out []string
	for _, f := range w {
		if !slices.Contains(g, f) {
			out = append(out, "- want "+f)
		}
	}
	for _, f := range g {
		if !slices.Contains(w, f) {
			out = append(out, "+ got  "+f)
		}
	}
	return strings.Join(out, "\n")
}

// fields flattens obj, as JSON, into path=value lines.
func fields(t *testing.T, obj any) []string {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			out = append(out, fmt.Sprintf("%s=%v", path, v))
		}
	}
	walk("", v)
	slices.Sort(out)
	return out
}
