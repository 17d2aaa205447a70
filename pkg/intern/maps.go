package intern

import (
	"maps"
	"reflect"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// Map returns the shared copy of m (annotations, labels). A map too large
// to share, or holding a long string, is returned as a new map whose keys
// and short values are shared; m itself is never changed, as it may be
// shared already.
func Map[M ~map[K]V, K, V ~string](t *Table, m M) M {
	if t == nil || len(m) == 0 {
		return m
	}
	var room [16]K
	keys := slices.AppendSeq(room[:0], maps.Keys(m))
	slices.Sort(keys)
	shareable := len(m) <= t.maxItems
	buf := make([]byte, 0, 256)
	for _, k := range keys {
		if !shareable {
			break
		}
		v := m[k]
		shareable = len(k) <= t.maxLen && len(v) <= t.maxLen
		buf = appendString(appendString(buf, string(k)), string(v))
	}
	if !shareable {
		return internEntries(t, m)
	}
	return t.share(key{typ: reflect.TypeFor[M](), content: string(buf)}, func() any {
		return internEntries(t, m)
	}).(M)
}

func internEntries[M ~map[K]V, K, V ~string](t *Table, m M) M {
	out := make(M, len(m))
	for k, v := range m {
		out[String(t, k)] = String(t, v)
	}
	return out
}

// ResourceList returns the shared copy of a list of quantities (a claim's
// requests, a PV's capacity). Quantities are compared by their canonical
// form and format, which is what reads of them see.
func ResourceList(t *Table, l v1.ResourceList) v1.ResourceList {
	if t == nil || len(l) == 0 || len(l) > t.maxItems {
		return l
	}
	buf := make([]byte, 0, 32)
	for _, name := range slices.Sorted(maps.Keys(l)) {
		q := l[name]
		buf = appendString(appendString(appendString(buf, string(name)), q.String()), string(q.Format))
	}
	return t.share(key{typ: reflect.TypeFor[v1.ResourceList](), content: string(buf)}, func() any {
		out := make(v1.ResourceList, len(l))
		for name, q := range l {
			out[String(t, name)] = q.DeepCopy()
		}
		return out
	}).(v1.ResourceList)
}

// NodeAffinity returns the shared copy of a PV's node affinity, which a
// driver with topology gives every volume of a zone alike.
func NodeAffinity(t *Table, a *v1.VolumeNodeAffinity) *v1.VolumeNodeAffinity {
	if t == nil || a == nil {
		return a
	}
	data, err := a.Marshal()
	if err != nil || len(data) > t.maxLen*t.maxItems {
		return a
	}
	return t.share(key{typ: reflect.TypeFor[*v1.VolumeNodeAffinity](), content: string(data)}, func() any {
		return a.DeepCopy()
	}).(*v1.VolumeNodeAffinity)
}
