package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// pairs reads "k=v,k=v" into a map; the fuzzer writes any keys and values.
func pairs(s string) map[string]string {
	m := map[string]string{}
	if s == "" {
		return m
	}
	for p := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return m
}

// allowedTerms reads terms, one per line, of "key=v1|v2;key=v3".
func allowedTerms(s string) []v1.TopologySelectorTerm {
	if s == "" {
		return nil
	}
	var terms []v1.TopologySelectorTerm
	for line := range strings.SplitSeq(s, "\n") {
		var term v1.TopologySelectorTerm
		for expr := range strings.SplitSeq(line, ";") {
			k, vals, _ := strings.Cut(expr, "=")
			term.MatchLabelExpressions = append(term.MatchLabelExpressions, v1.TopologySelectorLabelRequirement{Key: k, Values: strings.Split(vals, "|")})
		}
		terms = append(terms, term)
	}
	return terms
}

// Whatever the Nodes' labels, the CSINodes' topology keys, the class's
// allowed topologies and the flags, Requirements answers without panicking,
// and a requirement it gives is well formed: requisite segments unique and
// non-empty, preferred the same segments in another order.
func FuzzRequirements(f *testing.F) {
	f.Add("topology.example.com/zone=a", "topology.example.com/zone=b", "topology.example.com/zone", "topology.example.com/zone", "", uint8(1), false, false)
	f.Add("zone=a,rack=1", "zone=a,rack=2", "zone,rack", "zone", "zone=a|b;rack=1", uint8(0), true, false)
	f.Add("", "zone=", "zone", "", "", uint8(2), false, true)
	f.Fuzz(func(t *testing.T, labelsA, labelsB, keysA, keysB, allowed string, selected uint8, strict, immediate bool) {
		keys := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		c := cluster{
			nodes: []*v1.Node{nodeObj("n0", pairs(labelsA)), nodeObj("n1", pairs(labelsB))},
			csiNodes: []*storagev1.CSINode{
				csiNodeObj("n0", map[string][]string{driver: keys(keysA)}),
				csiNodeObj("n1", map[string][]string{driver: keys(keysB)}),
			},
		}
		req := c.request(t)
		req.AllowedTopologies = allowedTerms(allowed)
		req.StrictTopology, req.ImmediateTopology = strict, immediate
		if i := int(selected) % 3; i < 2 {
			req.SelectedNode = c.nodes[i]
		}
		got, err := Requirements(t.Context(), req)
		if err != nil || got == nil {
			return
		}
		seen := map[string]bool{}
		var requisite, preferred []string
		for _, tp := range got.Requisite {
			if len(tp.GetSegments()) == 0 {
				t.Fatalf("empty requisite segment in %v", got.Requisite)
			}
			key := fmt.Sprint(tp.GetSegments())
			if seen[key] {
				t.Fatalf("requisite segment %s twice in %v", key, got.Requisite)
			}
			seen[key] = true
			requisite = append(requisite, key)
		}
		for _, tp := range got.Preferred {
			preferred = append(preferred, fmt.Sprint(tp.GetSegments()))
		}
		slices.Sort(requisite)
		slices.Sort(preferred)
		if !slices.Equal(requisite, preferred) {
			t.Fatalf("preferred %v is not the requisite %v reordered", got.Preferred, got.Requisite)
		}
	})
}
