package topology

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
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

// termFromLabels takes the value of every key from labels; ok is false when
// labels lack one (which may be "").
func termFromLabels(labels map[string]string, keys []string) (t term, ok bool) {
	t = make(term, 0, len(keys))
	for _, k := range keys {
		v, found := labels[k]
		if !found {
			return nil, false
		}
		t = append(t, segment{k, v})
	}
	t.sort()
	return t, true
}

// compare orders segments by key, then value.
func (s segment) compare(other segment) int {
	return cmp.Or(strings.Compare(s.key, other.key), strings.Compare(s.value, other.value))
}

func (t term) sort() {
	slices.SortFunc(t, segment.compare)
}

// compare orders terms as upstream external-provisioner does (shorter terms
// first, then pair by pair), which fixes the order that the preferred list
// is rotated from.
func (t term) compare(other term) int {
	if len(t) != len(other) {
		return len(t) - len(other)
	}
	return slices.CompareFunc(t, other, segment.compare)
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

// plain drops term's String method, so that %v prints it as upstream's
// error texts print their terms: [{key value} ...].
func plain(t term) []segment { return t }

// plainAll is plain for a list of terms: [[{key value}] ...].
func plainAll(terms []term) [][]segment {
	out := make([][]segment, len(terms))
	for i, t := range terms {
		out[i] = t
	}
	return out
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

// preferredTerms orders the requisite segments by preference.
func preferredTerms(req Request, requisite []term, selected term) ([]term, error) {
	if req.SelectedNode == nil {
		// Spread volumes, StatefulSet replicas in particular, across the
		// segments instead of always preferring the first one.
		return rotate(requisite, spreadOffset(req.PVName)%uint32(len(requisite))), nil
	}
	// Start with the first segment that the selected node lies in; with
	// strict topology that is the node's own and only segment.
	if i := slices.IndexFunc(requisite, func(t term) bool { return t.subsetOf(selected) }); i >= 0 {
		return rotate(requisite, uint32(i)), nil
	}
	// Not expected: the scheduler only picks nodes within the allowed
	// topologies, and aggregation includes the selected node unless the Node
	// lister lags behind.
	// Upstream's text (GenerateAccessibilityRequirements).
	return nil, fmt.Errorf("topology %v from selected node %q is not in requisite: %v", plain(selected), req.SelectedNode.Name, plainAll(requisite))
}

// rotate returns a copy of terms that starts at index i.
func rotate(terms []term, i uint32) []term {
	return slices.Concat(terms[i:], terms[:i])
}

// spreadOffset is how far the preferred list is rotated for a volume name.
// It is the heuristic of upstream external-provisioner (taken from the
// in-tree volume plugins): for names like "claim-statefulset-3" only
// "statefulset" is hashed and the ordinal is added, so replicas of one
// StatefulSet go round-robin over the segments, and all claims of one
// replica land together. Upstream uses a random offset for an empty name;
// hashing it keeps the result deterministic.
func spreadOffset(name string) uint32 {
	hashed, index := name, uint32(0)
	if dash := strings.LastIndexByte(name, '-'); dash != -1 {
		if id, err := strconv.ParseUint(name[dash+1:], 10, 32); err == nil {
			index = uint32(id)
			hashed = name[:dash]
			if dash := strings.LastIndexByte(hashed, '-'); dash != -1 {
				hashed = hashed[dash+1:]
			}
		}
	}
	h := fnv.New32()
	h.Write([]byte(hashed))
	return h.Sum32() + index
}
