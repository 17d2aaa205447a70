package topology

import (
	"cmp"
	"slices"
	"strings"

	"github.com/container-storage-interface/spec/lib/go/csi"
)

// segment is one topology key and its value.
type segment struct {
	key, value string
}

// term is one topology segment in CSI terms: key/value pairs that all apply
// at once. It is kept sorted by key so that terms can be compared and
// deduplicated cheaply.
type term []segment

// termFromLabels takes the value of every key from labels. It reports the
// first key that labels lack, if any.
func termFromLabels(labels map[string]string, keys []string) (term, string) {
	t := make(term, 0, len(keys))
	for _, k := range keys {
		v, ok := labels[k]
		if !ok {
			return nil, k
		}
		t = append(t, segment{k, v})
	}
	t.sort()
	return t, ""
}

func (t term) sort() {
	slices.SortFunc(t, func(a, b segment) int {
		return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.value, b.value))
	})
}

// compare orders terms as upstream external-provisioner does (shorter terms
// first, then pair by pair), which fixes the order that the preferred list
// is rotated from.
func (t term) compare(other term) int {
	if len(t) != len(other) {
		return len(t) - len(other)
	}
	for i := range t {
		if r := cmp.Or(strings.Compare(t[i].key, other[i].key), strings.Compare(t[i].value, other[i].value)); r != 0 {
			return r
		}
	}
	return 0
}

// subsetOf reports whether every pair of t is also in other. An allowed
// topology naming only some of the driver's keys thereby matches a node's
// full topology.
func (t term) subsetOf(other term) bool {
	for _, s := range t {
		if !slices.Contains(other, s) {
			return false
		}
	}
	return true
}

func (t term) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s.key)
		b.WriteByte('=')
		b.WriteString(s.value)
	}
	b.WriteByte('}')
	return b.String()
}

// sortedUnique sorts terms and drops duplicates, in place.
func sortedUnique(terms []term) []term {
	slices.SortFunc(terms, term.compare)
	return slices.CompactFunc(terms, func(a, b term) bool { return a.compare(b) == 0 })
}

func toCSI(terms []term) []*csi.Topology {
	out := make([]*csi.Topology, 0, len(terms))
	for _, t := range terms {
		segs := make(map[string]string, len(t))
		for _, s := range t {
			segs[s.key] = s.value
		}
		out = append(out, &csi.Topology{Segments: segs})
	}
	return out
}
