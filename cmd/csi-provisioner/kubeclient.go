package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// restConfig builds the API server configuration as upstream does: the
// KUBECONFIG environment variable overrides --kubeconfig; a kubeconfig or
// --master means out of cluster, otherwise the in-cluster service account.
func restConfig(logger klog.Logger, cfg *config, getenv func(string) string) (*rest.Config, error) {
	kubeconfig := cfg.kubeconfig
	if env := getenv("KUBECONFIG"); env != "" {
		logger.Info("Using the KUBECONFIG environment variable", "kubeconfig", env)
		kubeconfig = env
	}

	var (
		rc  *rest.Config
		err error
	)
	if cfg.master != "" || kubeconfig != "" {
		rc, err = clientcmd.BuildConfigFromFlags(cfg.master, kubeconfig)
	} else {
		rc, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("building Kubernetes client configuration: %w", err)
	}

	rc.QPS = cfg.kubeAPIQPS
	rc.Burst = cfg.kubeAPIBurst
	rc.UserAgent = "csi-provisioner/" + version
	return rc, nil
}

// kubeClients are the API clients of the process.
type kubeClients struct {
	// core serves the controllers; it speaks protobuf, which is cheaper for
	// the built-in types it handles.
	core kubernetes.Interface
	// election is separate so that a busy, throttled core client cannot
	// delay lease renewal.
	election kubernetes.Interface
	// dynamic reads and writes LocalVolumes and LocalVolumeSets; it shares
	// the core client's rate limit settings.
	dynamic dynamic.Interface
}

func newKubeClients(rc *rest.Config) (*kubeClients, error) {
	coreConfig := rest.CopyConfig(rc)
	coreConfig.ContentType = runtime.ContentTypeProtobuf
	core, err := kubernetes.NewForConfig(coreConfig)
	if err != nil {
		return nil, fmt.Errorf("creating Kubernetes client: %w", err)
	}
	election, err := kubernetes.NewForConfig(coreConfig)
	if err != nil {
		return nil, fmt.Errorf("creating leader election client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("creating dynamic client: %w", err)
	}
	return &kubeClients{core: core, election: election, dynamic: dyn}, nil
}
