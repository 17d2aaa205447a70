package finalizer

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLabelsAndSpecGoInTheFinalizersPinnedWrite(t *testing.T) {
	to := &recorder{}
	obj := object("other")
	obj.Labels = map[string]string{"app": "db", "old": "x"}
	c := Change{
		Add:          []string{"mine"},
		SetLabels:    map[string]string{"kept": "true", "app": "db"},
		RemoveLabels: []string{"old", "absent"},
		Spec:         map[string]any{"persistentVolumeReclaimPolicy": "Retain"},
	}
	if _, err := Write(context.Background(), to, obj, c); err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"finalizers":["other","mine"],"labels":{"kept":"true","old":null},"resourceVersion":"42","uid":"uid-1"},"spec":{"persistentVolumeReclaimPolicy":"Retain"}}`
	if len(to.raw) != 1 || to.raw[0] != want {
		t.Errorf("sent %q; want one patch %s", to.raw, want)
	}
}

func TestALabelAlreadySetIsNoChange(t *testing.T) {
	to := &recorder{}
	obj := object()
	obj.Labels = map[string]string{"kept": "true"}
	wrote, err := Write(context.Background(), to, obj, Change{SetLabels: map[string]string{"kept": "true"}, RemoveLabels: []string{"absent"}})
	if err != nil || wrote || len(to.raw) != 0 {
		t.Errorf("wrote %v (%q), err %v; want nothing written", wrote, to.raw, err)
	}
}

func TestApplyChangesLabelsOnACopyOfTheMap(t *testing.T) {
	labels := map[string]string{"app": "db", "old": "x"}
	obj := object()
	obj.Labels = labels
	if !Apply(obj, Change{SetLabels: map[string]string{"kept": "true"}, RemoveLabels: []string{"old"}}) {
		t.Fatal("Apply changed nothing")
	}
	if got := obj.Labels; len(got) != 2 || got["kept"] != "true" || got["app"] != "db" {
		t.Errorf("labels = %v", got)
	}
	if len(labels) != 2 || labels["old"] != "x" {
		t.Errorf("the caller's map changed: %v", labels)
	}
}

func TestAnUpdateTargetRefusesASpecOrStatusChange(t *testing.T) {
	for name, c := range map[string]Change{
		"spec":   {Spec: map[string]any{"persistentVolumeReclaimPolicy": "Retain"}},
		"status": {Status: map[string]any{"phase": "Released"}},
	} {
		updated := false
		to := Update("PersistentVolume", func(context.Context, *v1.PersistentVolume) error { updated = true; return nil })
		pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", UID: "u", ResourceVersion: "1"}}
		_, err := Write(context.Background(), to, pv, c)
		if err == nil || !strings.Contains(err.Error(), "patch") || updated {
			t.Errorf("%s: err %v, updated %v; want a refusal naming patch, and no update", name, err, updated)
		}
	}
}
