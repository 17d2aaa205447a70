package cleanup

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

func req(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func terms(ts ...corev1.NodeSelectorTerm) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: ts}
}

func exprs(rs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: rs}
}

func TestSelects(t *testing.T) {
	node := newNode("worker-3", "storage", "local", "rack", "12", "zone", "a")
	for _, tc := range []struct {
		name     string
		selector *corev1.NodeSelector
		want     bool
		invalid  bool
	}{
		{"nil", nil, true, false},
		{"no terms", terms(), true, false},
		{"empty term", terms(corev1.NodeSelectorTerm{}), false, false},
		{"In", terms(exprs(req("storage", corev1.NodeSelectorOpIn, "ssd", "local"))), true, false},
		{"In miss", terms(exprs(req("storage", corev1.NodeSelectorOpIn, "ssd"))), false, false},
		{"In absent label", terms(exprs(req("gpu", corev1.NodeSelectorOpIn, "yes"))), false, false},
		{"NotIn", terms(exprs(req("storage", corev1.NodeSelectorOpNotIn, "ssd"))), true, false},
		{"NotIn miss", terms(exprs(req("storage", corev1.NodeSelectorOpNotIn, "local"))), false, false},
		{"NotIn absent label", terms(exprs(req("gpu", corev1.NodeSelectorOpNotIn, "yes"))), true, false},
		{"Exists", terms(exprs(req("rack", corev1.NodeSelectorOpExists))), true, false},
		{"Exists miss", terms(exprs(req("gpu", corev1.NodeSelectorOpExists))), false, false},
		{"DoesNotExist", terms(exprs(req("gpu", corev1.NodeSelectorOpDoesNotExist))), true, false},
		{"DoesNotExist miss", terms(exprs(req("rack", corev1.NodeSelectorOpDoesNotExist))), false, false},
		{"Gt", terms(exprs(req("rack", corev1.NodeSelectorOpGt, "11"))), true, false},
		{"Gt miss", terms(exprs(req("rack", corev1.NodeSelectorOpGt, "12"))), false, false},
		{"Lt", terms(exprs(req("rack", corev1.NodeSelectorOpLt, "13"))), true, false},
		{"Lt miss", terms(exprs(req("rack", corev1.NodeSelectorOpLt, "12"))), false, false},
		{"Gt on a non-integer label", terms(exprs(req("zone", corev1.NodeSelectorOpGt, "1"))), false, false},
		{"Gt absent label", terms(exprs(req("gpu", corev1.NodeSelectorOpGt, "1"))), false, false},
		{"requirements ANDed", terms(exprs(req("storage", corev1.NodeSelectorOpIn, "local"), req("zone", corev1.NodeSelectorOpIn, "b"))), false, false},
		{"terms ORed", terms(exprs(req("zone", corev1.NodeSelectorOpIn, "b")), exprs(req("zone", corev1.NodeSelectorOpIn, "a"))), true, false},
		{"matchFields name", terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "worker-3")}}), true, false},
		{"matchFields name miss", terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "worker-4")}}), false, false},
		{"matchFields NotIn", terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpNotIn, "worker-4")}}), true, false},
		{"fields and labels ANDed", terms(corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{req("storage", corev1.NodeSelectorOpIn, "local")},
			MatchFields:      []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "worker-4")},
		}), false, false},
		{"unknown operator", terms(exprs(req("storage", "Like", "l*"))), false, true},
		{"In without values", terms(exprs(req("storage", corev1.NodeSelectorOpIn))), false, true},
		{"Exists with values", terms(exprs(req("storage", corev1.NodeSelectorOpExists, "x"))), false, true},
		{"Gt with a non-integer value", terms(exprs(req("rack", corev1.NodeSelectorOpGt, "ten"))), false, true},
		{"Gt with two values", terms(exprs(req("rack", corev1.NodeSelectorOpGt, "1", "2"))), false, true},
		{"invalid after a miss", terms(exprs(req("zone", corev1.NodeSelectorOpIn, "b"), req("rack", corev1.NodeSelectorOpLt))), false, true},
		{"matchFields on a label", terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.labels", corev1.NodeSelectorOpIn, "x")}}), false, true},
		{"matchFields Exists", terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpExists)}}), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := selects(tc.selector, node)
			if tc.invalid {
				if err == nil {
					t.Fatalf("selects = %v, nil; want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("selects = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestVolumeNode(t *testing.T) {
	affinity := func(ts ...corev1.NodeSelectorTerm) testutil.VolumeFunc {
		return func(pv *corev1.PersistentVolume) {
			delete(pv.Labels, local.NodeLabel)
			pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: terms(ts...)}
		}
	}
	hostname := func(values ...string) corev1.NodeSelectorTerm {
		return exprs(req(local.NodeLabel, corev1.NodeSelectorOpIn, values...))
	}
	for _, tc := range []struct {
		name string
		opts []testutil.VolumeOption
		want string
	}{
		{"label", nil, testNode},
		{"label wins over affinity", []testutil.VolumeOption{testutil.VolumeFunc(func(pv *corev1.PersistentVolume) { pv.Labels[local.NodeLabel] = "by-label" })}, "by-label"},
		{"affinity", []testutil.VolumeOption{affinity(hostname("node-7"))}, "node-7"},
		{"affinity with other keys", []testutil.VolumeOption{affinity(exprs(req("zone", corev1.NodeSelectorOpIn, "a"), req(local.NodeLabel, corev1.NodeSelectorOpIn, "node-7")))}, "node-7"},
		{"affinity repeating one node", []testutil.VolumeOption{affinity(hostname("node-7"), hostname("node-7"))}, "node-7"},
		{"affinity with several values", []testutil.VolumeOption{affinity(hostname("node-7", "node-8"))}, ""},
		{"affinity with several nodes", []testutil.VolumeOption{affinity(hostname("node-7"), hostname("node-8"))}, ""},
		{"neither", []testutil.VolumeOption{affinity()}, ""},
		{"no affinity", []testutil.VolumeOption{testutil.VolumeFunc(func(pv *corev1.PersistentVolume) {
			delete(pv.Labels, local.NodeLabel)
			pv.Spec.NodeAffinity = nil
		})}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := volumeNode(newPV("pv", KindLocalVolume, tc.opts...)); got != tc.want {
				t.Fatalf("volumeNode = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	pv := newPV("pv", KindLocalVolumeSet)
	if got, ok := volumeOwner(pv); !ok || got != keyOf(KindLocalVolumeSet) {
		t.Errorf("volumeOwner = %v, %v; want %v", got, ok, keyOf(KindLocalVolumeSet))
	}
	pv.Labels[local.OwnerKindLabel] = "Deployment"
	if got, ok := volumeOwner(pv); ok {
		t.Errorf("volumeOwner of a foreign kind = %v, want none", got)
	}
	pv = newPV("pv", KindLocalVolume)
	delete(pv.Labels, local.OwnerNamespaceLabel)
	if got, ok := volumeOwner(pv); ok {
		t.Errorf("volumeOwner without a namespace = %v, want none", got)
	}
}

// A key the handlers never make is dropped, not retried.
func TestUnknownKeyDropped(t *testing.T) {
	e := newEnv(t, setup{})
	for _, key := range []OwnerKey{{Kind: "Deployment", Namespace: "ns", Name: "name"}, {}} {
		if after, err := e.sync(t, key); err != nil || after != 0 {
			t.Errorf("sync(%v) = %v, %v; want it dropped", key, after, err)
		}
	}
	if w := e.writes(); len(w) != 0 {
		t.Errorf("writes = %v", w)
	}
}
