package agent

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMatchNodeSelector(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{
		"kubernetes.io/hostname": "host-a", "disktype": "ssd", "cpus": "16",
	}}}
	expr := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	term := func(exprs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: exprs}
	}
	fieldTerm := func(exprs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchFields: exprs}
	}
	sel := func(terms ...corev1.NodeSelectorTerm) *corev1.NodeSelector {
		return &corev1.NodeSelector{NodeSelectorTerms: terms}
	}
	tests := []struct {
		name    string
		sel     *corev1.NodeSelector
		want    bool
		wantErr bool
	}{
		{name: "nil selects all", sel: nil, want: true},
		{name: "no terms selects none", sel: sel(), want: false},
		{name: "empty term selects none", sel: sel(corev1.NodeSelectorTerm{}), want: false},
		{name: "In", sel: sel(term(expr("disktype", corev1.NodeSelectorOpIn, "hdd", "ssd"))), want: true},
		{name: "In other value", sel: sel(term(expr("disktype", corev1.NodeSelectorOpIn, "hdd"))), want: false},
		{name: "In missing label", sel: sel(term(expr("zone", corev1.NodeSelectorOpIn, "a"))), want: false},
		{name: "NotIn", sel: sel(term(expr("disktype", corev1.NodeSelectorOpNotIn, "hdd"))), want: true},
		{name: "NotIn its value", sel: sel(term(expr("disktype", corev1.NodeSelectorOpNotIn, "ssd"))), want: false},
		{name: "NotIn missing label", sel: sel(term(expr("zone", corev1.NodeSelectorOpNotIn, "a"))), want: true},
		{name: "Exists", sel: sel(term(expr("disktype", corev1.NodeSelectorOpExists))), want: true},
		{name: "Exists missing", sel: sel(term(expr("zone", corev1.NodeSelectorOpExists))), want: false},
		{name: "DoesNotExist", sel: sel(term(expr("zone", corev1.NodeSelectorOpDoesNotExist))), want: true},
		{name: "DoesNotExist present", sel: sel(term(expr("disktype", corev1.NodeSelectorOpDoesNotExist))), want: false},
		{name: "Gt", sel: sel(term(expr("cpus", corev1.NodeSelectorOpGt, "8"))), want: true},
		{name: "Gt equal", sel: sel(term(expr("cpus", corev1.NodeSelectorOpGt, "16"))), want: false},
		{name: "Lt", sel: sel(term(expr("cpus", corev1.NodeSelectorOpLt, "32"))), want: true},
		{name: "Lt smaller", sel: sel(term(expr("cpus", corev1.NodeSelectorOpLt, "4"))), want: false},
		{name: "Gt on a non-number label", sel: sel(term(expr("disktype", corev1.NodeSelectorOpGt, "1"))), want: false},
		{name: "Gt missing label", sel: sel(term(expr("zone", corev1.NodeSelectorOpGt, "1"))), want: false},
		{name: "Gt bad value", sel: sel(term(expr("cpus", corev1.NodeSelectorOpGt, "many"))), want: false, wantErr: true},
		{name: "Gt two values", sel: sel(term(expr("cpus", corev1.NodeSelectorOpGt, "1", "2"))), want: false, wantErr: true},
		{name: "unknown operator", sel: sel(term(expr("cpus", "Near", "1"))), want: false, wantErr: true},
		{name: "expressions ANDed", sel: sel(term(
			expr("disktype", corev1.NodeSelectorOpIn, "ssd"), expr("cpus", corev1.NodeSelectorOpGt, "32"))), want: false},
		{name: "expressions ANDed, all hold", sel: sel(term(
			expr("disktype", corev1.NodeSelectorOpIn, "ssd"), expr("cpus", corev1.NodeSelectorOpGt, "8"))), want: true},
		{name: "terms ORed", sel: sel(
			term(expr("disktype", corev1.NodeSelectorOpIn, "hdd")),
			term(expr("kubernetes.io/hostname", corev1.NodeSelectorOpIn, "host-a"))), want: true},
		{name: "a bad term does not hide a good one", sel: sel(
			term(expr("cpus", "Near", "1")),
			term(expr("disktype", corev1.NodeSelectorOpExists))), want: true, wantErr: false},
		{name: "matchFields name In", sel: sel(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-a"))), want: true},
		{name: "matchFields name In other", sel: sel(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpIn, "node-b"))), want: false},
		{name: "matchFields name NotIn", sel: sel(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpNotIn, "node-b"))), want: true},
		{name: "matchFields unknown field", sel: sel(fieldTerm(expr("spec.podCIDR", corev1.NodeSelectorOpIn, "x"))), want: false, wantErr: true},
		{name: "matchFields Exists unsupported", sel: sel(fieldTerm(expr("metadata.name", corev1.NodeSelectorOpExists))), want: false, wantErr: true},
		{name: "fields and labels ANDed", sel: sel(corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{expr("disktype", corev1.NodeSelectorOpIn, "ssd")},
			MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "node-b")},
		}), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := matchNodeSelector(tc.sel, node)
			if got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
			if (err != nil) != tc.wantErr {
				t.Errorf("err = %v, want error: %v", err, tc.wantErr)
			}
		})
	}
}
