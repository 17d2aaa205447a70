package intern

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

// fresh is s in an allocation of its own, as decoding gives every object.
func fresh(s string) string { return strings.Clone(s) }

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// sameRef tells whether two maps, slices or pointers are one.
func sameRef(a, b any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestStringsAreShared(t *testing.T) {
	tab := New(Options{})
	a, b := String(tab, fresh("bench-cached")), String(tab, fresh("bench-cached"))
	if a != "bench-cached" || !sameString(a, b) {
		t.Fatalf("%q and %q are not one copy", a, b)
	}
	mode := String(tab, v1.PersistentVolumeAccessMode(fresh("ReadWriteOnce")))
	if mode != v1.ReadWriteOnce {
		t.Fatalf("typed string = %q", mode)
	}
}

func TestLongStringsAreNotShared(t *testing.T) {
	tab := New(Options{MaxLen: 8})
	long := strings.Repeat("x", 9)
	if a, b := String(tab, fresh(long)), String(tab, fresh(long)); sameString(a, b) {
		t.Fatal("a string longer than MaxLen was shared")
	}
	if tab.Len() != 0 {
		t.Fatalf("the table keeps %d values", tab.Len())
	}
}

func TestPointersAreSharedPerType(t *testing.T) {
	tab := New(Options{})
	class, other := fresh("fast"), fresh("fast")
	a, b := Pointer(tab, &class), Pointer(tab, &other)
	if *a != "fast" || a != b {
		t.Fatal("two pointers to one class name are not one")
	}
	mode := v1.PersistentVolumeMode("fast")
	if m := Pointer(tab, &mode); *m != mode {
		t.Fatalf("a pointer of another type = %q", *m)
	}
	if Pointer[string](tab, nil) != nil {
		t.Fatal("nil became a pointer")
	}
}

func TestSlicesAreSharedWithoutRoom(t *testing.T) {
	tab := New(Options{})
	a := Slice(tab, append(make([]string, 0, 4), fresh("kubernetes.io/pvc-protection")))
	b := Slice(tab, []string{fresh("kubernetes.io/pvc-protection")})
	if !sameRef(a, b) || cap(a) != len(a) {
		t.Fatalf("%v and %v: one slice without room wanted, cap %d", a, b, cap(a))
	}
	grown := append(a, "other")
	if len(b) != 1 || b[0] != "kubernetes.io/pvc-protection" || sameRef(grown, b) {
		t.Fatal("an append changed the shared slice")
	}
	if Slice[[]string](tab, nil) != nil {
		t.Fatal("nil became a slice")
	}
	if s := Slice(tab, []string{}); s == nil || len(s) != 0 {
		t.Fatal("an empty slice became nil")
	}
	modes := Slice(tab, []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce})
	if len(modes) != 1 || modes[0] != v1.ReadWriteOnce {
		t.Fatalf("typed slice = %v", modes)
	}
}

func TestMapsAreSharedAndNeverChanged(t *testing.T) {
	tab := New(Options{})
	decoded := func() map[string]string {
		return map[string]string{fresh("pv.kubernetes.io/bind-completed"): fresh("yes"), fresh("volume.kubernetes.io/storage-provisioner"): fresh("csi.example.com")}
	}
	in := decoded()
	a, b := Map(tab, in), Map(tab, decoded())
	if !sameRef(a, b) || !reflect.DeepEqual(a, in) {
		t.Fatalf("%v and %v are not one map with the same content", a, b)
	}
	if sameRef(a, in) {
		t.Fatal("the object's own map became the shared one")
	}
	if c := Map(tab, map[string]string{"pv.kubernetes.io/bind-completed": "no"}); sameRef(a, c) {
		t.Fatal("maps of different content were shared")
	}
	if Map[map[string]string](tab, nil) != nil {
		t.Fatal("nil became a map")
	}
}

func TestMapsWithALongValueAreCopiedWithSharedKeys(t *testing.T) {
	tab := New(Options{MaxLen: 64})
	last := strings.Repeat("x", 65)
	in := map[string]string{v1.LastAppliedConfigAnnotation: last, fresh("team"): fresh("storage")}
	out := Map(tab, in)
	if !reflect.DeepEqual(out, in) || sameRef(out, in) {
		t.Fatalf("got %v, want a copy of %v", out, in)
	}
	if again := Map(tab, in); sameRef(again, out) {
		t.Fatal("a map holding a long value was shared")
	}
	if shared := String(tab, fresh("storage")); !sameString(shared, out["team"]) {
		t.Fatal("the short value was not shared")
	}
}

func TestResourceListsAreSharedByValueAndFormat(t *testing.T) {
	tab := New(Options{})
	parsed := v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")}
	made := v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(10<<30, resource.BinarySI)}
	a, b := ResourceList(tab, parsed), ResourceList(tab, made)
	if !sameRef(a, b) || !equality.Semantic.DeepEqual(a, parsed) {
		t.Fatalf("%v and %v are not one list equal to %v", a, b, parsed)
	}
	decimal := ResourceList(tab, v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(10<<30, resource.DecimalSI)})
	if sameRef(a, decimal) {
		t.Fatal("quantities of different formats were shared: they print differently")
	}
	q := a[v1.ResourceStorage]
	if q.String() != "10Gi" {
		t.Fatalf("shared quantity prints %q", q.String())
	}
}

func TestNodeAffinitiesAreShared(t *testing.T) {
	tab := New(Options{})
	zone := func() *v1.VolumeNodeAffinity {
		return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: v1.NodeSelectorOpIn, Values: []string{"zone-a"}}},
		}}}}
	}
	a, b := NodeAffinity(tab, zone()), NodeAffinity(tab, zone())
	if a != b || !reflect.DeepEqual(a, zone()) {
		t.Fatal("two equal node affinities are not one")
	}
}

func TestTheTableKeepsAtMostSizeValues(t *testing.T) {
	tab := New(Options{Size: 2})
	for i := range 10 {
		String(tab, fmt.Sprint("value-", i))
	}
	if tab.Len() != 2 {
		t.Fatalf("the table keeps %d values, want 2", tab.Len())
	}
}

func TestANilTableSharesNothing(t *testing.T) {
	var tab *Table
	m := map[string]string{"a": "b"}
	if s := String(tab, "x"); s != "x" || !sameRef(Map(tab, m), m) {
		t.Fatal("a nil table changed a value")
	}
}

// Run with -race: the informers of several kinds share one table.
func TestTheTableIsSafeForConcurrentUse(t *testing.T) {
	tab := New(Options{Size: 16})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				v := fresh(fmt.Sprint("ns-", (i+g)%32))
				if got := Map(tab, map[string]string{"k": v}); got["k"] != v {
					t.Errorf("map value %q, want %q", got["k"], v)
				}
			}
		})
	}
	wg.Wait()
}
