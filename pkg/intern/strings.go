package intern

import (
	"encoding/binary"
	"reflect"
	"slices"
	"strings"
)

// String returns the shared copy of s.
func String[T ~string](t *Table, s T) T {
	if t == nil || s == "" || len(s) > t.maxLen {
		return s
	}
	v := t.share(key{content: string(s)}, func() any {
		// A copy of its own: s may be part of a larger allocation.
		return strings.Clone(string(s))
	})
	return T(v.(string))
}

// Pointer returns a shared pointer to the value p points to.
func Pointer[T ~string](t *Table, p *T) *T {
	if t == nil || p == nil || len(*p) > t.maxLen {
		return p
	}
	v := t.share(key{typ: reflect.TypeFor[*T](), content: string(*p)}, func() any {
		s := String(t, *p)
		return &s
	})
	return v.(*T)
}

// Slice returns the shared copy of s, or s when it is too long to share.
// Nil and empty slices are returned as they are.
func Slice[S ~[]E, E ~string](t *Table, s S) S {
	if t == nil || len(s) == 0 || len(s) > t.maxItems {
		return s
	}
	buf := make([]byte, 0, 64)
	for _, e := range s {
		if len(e) > t.maxLen {
			return s
		}
		buf = appendString(buf, string(e))
	}
	v := t.share(key{typ: reflect.TypeFor[S](), content: string(buf)}, func() any {
		shared := make(S, len(s))
		for i, e := range s {
			shared[i] = String(t, e)
		}
		return shared
	})
	// Full: an append to it copies it.
	return slices.Clip(v.(S))
}

// appendString appends s with its length, so that no two sequences of
// strings encode alike.
func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}
