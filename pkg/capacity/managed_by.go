package capacity

import (
	"fmt"
	"hash/fnv"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ManagedByNode is the managed-by label value of the sidecar on node with
// --node-deployment: "external-provisioner-<node>", shortened with a hash
// to fit a label value exactly as upstream shortens it, so that a swap
// adopts the objects upstream's sidecar made on that node.
func ManagedByNode(node string) string {
	const limit = validation.DNS1035LabelMaxLength
	name := ManagedBy + "-" + node
	if len(name) <= limit {
		return name
	}
	// Room for the base once "-<8 hex digits>-" and the node name are in.
	room := limit - 10 - len(node)
	if room <= 0 {
		// The node name alone is too long: the base and a hash of the
		// whole name.
		short := ManagedBy[:min(len(ManagedBy), max(0, limit-9))] + "-" + fnv32a(name)
		return short[:min(limit, len(short))]
	}
	// Upstream hashes the base here, not the whole name; kept for the
	// label values to match.
	return fmt.Sprintf("%s-%s-%s", ManagedBy[:room], fnv32a(ManagedBy), node)
}

func fnv32a(s string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}
