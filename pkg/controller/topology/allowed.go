package topology

import (
	v1 "k8s.io/api/core/v1"
)

// expandAllowed turns StorageClass.allowedTopologies into CSI segments.
//
// allowedTopologies is an OR of terms, each an AND of keys, each key an OR
// of values; a CSI segment holds exactly one value per key. Each term is
// therefore expanded into the cartesian product of its values:
//
//	{zone: [z1, z2], rack: [r1]}  ->  {zone=z1,rack=r1}, {zone=z2,rack=r1}
//
// A term is kept as the StorageClass wrote it: keys it does not name stay
// unconstrained, as in upstream external-provisioner.
func expandAllowed(allowed []v1.TopologySelectorTerm) []term {
	var out []term
	for _, selector := range allowed {
		product := []term{{}}
		for _, expr := range selector.MatchLabelExpressions {
			var next []term
			for _, partial := range product {
				for _, value := range expr.Values {
					t := append(append(term{}, partial...), segment{expr.Key, value})
					next = append(next, t)
				}
			}
			product = next
		}
		for _, t := range product {
			if len(t) > 0 {
				t.sort()
				out = append(out, t)
			}
		}
	}
	return out
}
