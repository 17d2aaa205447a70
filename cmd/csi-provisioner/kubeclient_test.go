package main

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

func envWith(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// restConfigOf parses args and builds the API client configuration of them
// with the environment env.
func restConfigOf(t *testing.T, args []string, env map[string]string) (*rest.Config, error) {
	t.Helper()
	cfg, err := parseFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	return restConfig(klog.Background(), cfg, envWith(env))
}

func TestRestConfig(t *testing.T) {
	fromFlag := "--kubeconfig=" + writeKubeconfig(t, "https://flag.example:6443")
	for _, tc := range []struct {
		name      string
		args      []string
		env       map[string]string
		wantHost  string
		wantQPS   float32
		wantBurst int
	}{
		{"kubeconfig", []string{fromFlag, "--kube-api-qps=7.5", "--kube-api-burst=15"}, nil, "https://flag.example:6443", 7.5, 15},
		// Upstream lets KUBECONFIG override --kubeconfig.
		{"environment wins", []string{fromFlag}, map[string]string{"KUBECONFIG": writeKubeconfig(t, "https://env.example:6443")}, "https://env.example:6443", 5, 10},
		{"master", []string{"--master=http://master.example:8080"}, nil, "http://master.example:8080", 5, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := restConfigOf(t, tc.args, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if rc.Host != tc.wantHost {
				t.Errorf("host %q, want %q", rc.Host, tc.wantHost)
			}
			if rc.QPS != tc.wantQPS || rc.Burst != tc.wantBurst {
				t.Errorf("QPS %v burst %d, want %v and %d", rc.QPS, rc.Burst, tc.wantQPS, tc.wantBurst)
			}
			// Upstream's: client-go's default, named after the binary.
			if want := rest.DefaultKubernetesUserAgent(); rc.UserAgent != want {
				t.Errorf("user agent %q, want %q", rc.UserAgent, want)
			}
		})
	}
}

func TestRestConfigOutOfCluster(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	if _, err := restConfigOf(t, nil, nil); err == nil {
		t.Error("expected an error outside a cluster without kubeconfig or master")
	}
}

func TestKubeClientsUseProtobuf(t *testing.T) {
	rc, err := restConfigOf(t, []string{"--master=http://master.example:8080"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newKubeClients(rc, clientLimits{QPS: 10, Burst: 20}, clientLimits{QPS: 10, Burst: 20}); err != nil {
		t.Fatal(err)
	}
	if rc.ContentType == runtime.ContentTypeProtobuf {
		t.Error("the shared config must not be changed")
	}
}
