package intern

import (
	"reflect"

	"k8s.io/utils/lru"
)

// Options are what New reads; zero fields take the defaults.
type Options struct {
	// Size is how many distinct values the table keeps, the most recently
	// used (default 4096); a value it has dropped is shared again from its
	// next use on, and a value that does not repeat costs only its place.
	Size int
	// MaxLen is the longest string shared (default 256); maps and slices
	// holding a longer one are not shared whole. Long values (kubectl's
	// last-applied configuration) are unique to their object.
	MaxLen int
	// MaxItems is the most entries of a map or slice shared whole
	// (default 32).
	MaxItems int
}

const (
	defaultSize     = 4096
	defaultMaxLen   = 256
	defaultMaxItems = 32
)

// Table hands out the shared copies. It is safe for concurrent use; a nil
// Table shares nothing.
type Table struct {
	values   *lru.Cache
	maxLen   int
	maxItems int
}

// New returns an empty table.
func New(o Options) *Table {
	if o.Size <= 0 {
		// lru takes 0 for no bound.
		o.Size = defaultSize
	}
	if o.MaxLen <= 0 {
		o.MaxLen = defaultMaxLen
	}
	if o.MaxItems <= 0 {
		o.MaxItems = defaultMaxItems
	}
	return &Table{values: lru.New(o.Size), maxLen: o.MaxLen, maxItems: o.MaxItems}
}

// key names a shared value: its Go type (nil for strings, which are stored
// as string and converted) and its content.
type key struct {
	typ     reflect.Type
	content string
}

// share returns the value kept under k, or keeps and returns the one
// newValue makes. Two callers missing at once keep one of theirs: both stay
// correct.
func (t *Table) share(k key, newValue func() any) any {
	if v, ok := t.values.Get(k); ok {
		return v
	}
	v := newValue()
	t.values.Add(k, v)
	return v
}

// Len is how many values the table keeps.
func (t *Table) Len() int {
	return t.values.Len()
}
