package topology

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// preferredTerms orders the requisite segments by preference.
func preferredTerms(req Request, requisite []term, selected term) ([]term, error) {
	if req.SelectedNode == nil {
		// Spread volumes, StatefulSet replicas in particular, across the
		// segments instead of always preferring the first one.
		return rotate(requisite, spreadOffset(req.PVName)%uint32(len(requisite))), nil
	}
	// Start with the first segment that the selected node lies in; with
	// strict topology that is the node's own and only segment.
	for i, t := range requisite {
		if t.subsetOf(selected) {
			return rotate(requisite, uint32(i)), nil
		}
	}
	// Not expected: the scheduler only picks nodes within the allowed
	// topologies, and aggregation includes the selected node unless the Node
	// lister lags behind.
	return nil, fmt.Errorf("topology %v of selected node %q is not in requisite %v", selected, req.SelectedNode.Name, requisite)
}

// rotate returns a copy of terms that starts at index i.
func rotate(terms []term, i uint32) []term {
	out := make([]term, 0, len(terms))
	out = append(out, terms[i:]...)
	return append(out, terms[:i]...)
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
