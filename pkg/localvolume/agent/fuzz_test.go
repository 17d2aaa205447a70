package agent

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Whatever node selector a LocalVolume or LocalVolumeSet holds, matching a
// node answers without panicking, and a term that fails (a malformed
// requirement) is reported while another term may still select the node.
func FuzzMatchNodeSelector(f *testing.F) {
	f.Add("kubernetes.io/hostname", "In", "node-1,node-2", "metadata.name", "NotIn", "node-3", "node-1", "kubernetes.io/hostname=node-1")
	f.Add("disks", "Gt", "3", "metadata.name", "In", "", "n", "disks=10")
	f.Add("disks", "Lt", "x,y", "spec.unschedulable", "In", "true", "n", "")
	f.Add("", "Exists", "", "", "", "", "", "=")
	f.Fuzz(func(t *testing.T, exprKey, exprOp, exprValues, fieldKey, fieldOp, fieldValues, nodeName, labels string) {
		values := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Labels: map[string]string{}}}
		for pair := range strings.SplitSeq(labels, ",") {
			k, v, _ := strings.Cut(pair, "=")
			node.Labels[k] = v
		}
		term := corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: exprKey, Operator: corev1.NodeSelectorOperator(exprOp), Values: values(exprValues)}},
		}
		if fieldKey != "" {
			term.MatchFields = []corev1.NodeSelectorRequirement{{Key: fieldKey, Operator: corev1.NodeSelectorOperator(fieldOp), Values: values(fieldValues)}}
		}
		sel := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
		matched, err := matchNodeSelector(sel, node)
		if err != nil && matched {
			t.Fatalf("the only term both failed (%v) and selected the node", err)
		}
		again, err2 := matchNodeSelector(sel, node)
		if again != matched || (err == nil) != (err2 == nil) {
			t.Fatal("matching the same node twice gave different answers")
		}
		// A second term naming the node by name selects it, whatever the
		// first one did.
		byName := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{nodeName}}}}
		sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, byName)
		if matched, _ := matchNodeSelector(sel, node); !matched {
			t.Fatal("a term naming the node by name did not select it")
		}
	})
}
