package main

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
)

func envWith(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestRestConfigFromKubeconfig(t *testing.T) {
	cfg, err := parseFlags([]string{"--kubeconfig=" + writeKubeconfig(t, "https://flag.example:6443"), "--kube-api-qps=7.5", "--kube-api-burst=15"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := restConfig(klog.Background(), cfg, envWith(nil))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "https://flag.example:6443" {
		t.Errorf("host %q", rc.Host)
	}
	if rc.QPS != 7.5 || rc.Burst != 15 {
		t.Errorf("QPS %v burst %d", rc.QPS, rc.Burst)
	}
	if !strings.HasPrefix(rc.UserAgent, "csi-provisioner/") {
		t.Errorf("user agent %q", rc.UserAgent)
	}
}

func TestRestConfigEnvironmentWins(t *testing.T) {
	// Upstream lets KUBECONFIG override --kubeconfig.
	cfg, err := parseFlags([]string{"--kubeconfig=" + writeKubeconfig(t, "https://flag.example:6443")})
	if err != nil {
		t.Fatal(err)
	}
	env := envWith(map[string]string{"KUBECONFIG": writeKubeconfig(t, "https://env.example:6443")})
	rc, err := restConfig(klog.Background(), cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "https://env.example:6443" {
		t.Errorf("host %q", rc.Host)
	}
}

func TestRestConfigMaster(t *testing.T) {
	cfg, err := parseFlags([]string{"--master=http://master.example:8080"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := restConfig(klog.Background(), cfg, envWith(nil))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "http://master.example:8080" {
		t.Errorf("host %q", rc.Host)
	}
}

func TestRestConfigOutOfCluster(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := restConfig(klog.Background(), cfg, envWith(nil)); err == nil {
		t.Error("expected an error outside a cluster without kubeconfig or master")
	}
}

func TestKubeClientsUseProtobuf(t *testing.T) {
	cfg, err := parseFlags([]string{"--master=http://master.example:8080"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := restConfig(klog.Background(), cfg, envWith(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newKubeClients(rc, 10, 20); err != nil {
		t.Fatal(err)
	}
	if rc.ContentType == runtime.ContentTypeProtobuf {
		t.Error("the shared config must not be changed")
	}
}
