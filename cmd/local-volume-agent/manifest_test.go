package main

import (
	"bytes"
	"os"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestManifest checks that the DaemonSet in the deployment manifest decodes
// strictly and that its arguments, with NODE_NAME set as the downward API
// sets it, are accepted.
func TestManifest(t *testing.T) {
	data, err := os.ReadFile("../../deploy/kubernetes/local-volume-agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ds *appsv1.DaemonSet
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Kind == "DaemonSet" {
			ds = &appsv1.DaemonSet{}
			if err := yaml.UnmarshalStrict(doc, ds); err != nil {
				t.Fatalf("DaemonSet: %v", err)
			}
		}
	}
	if ds == nil {
		t.Fatal("no DaemonSet")
	}
	spec := ds.Spec.Template.Spec
	if !spec.HostPID || spec.ServiceAccountName != "local-volume-agent" || len(spec.Containers) != 1 {
		t.Fatalf("pod spec %+v", spec)
	}
	c := spec.Containers[0]
	if c.Env[0].Name != nodeNameEnv || c.Env[0].ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("env %+v", c.Env)
	}
	cfg, err := parseFlags(c.Args, env(map[string]string{nodeNameEnv: "node-1"}))
	if err != nil {
		t.Fatalf("args %q: %v", c.Args, err)
	}
	var rootMounted bool
	for _, m := range c.VolumeMounts {
		rootMounted = rootMounted || m.MountPath == cfg.symlinkRoot
	}
	if !rootMounted {
		t.Errorf("symlink root %s is not mounted", cfg.symlinkRoot)
	}
}
