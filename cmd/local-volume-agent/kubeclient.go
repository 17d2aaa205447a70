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

// restConfig builds the API server configuration as csi-provisioner does:
// the KUBECONFIG environment variable overrides --kubeconfig; a kubeconfig
// or --master means out of cluster, otherwise the in-cluster service
// account.
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
	rc.UserAgent = "local-volume-agent/" + version
	return rc, nil
}

// newClients returns the typed client (protobuf, cheaper for the built-in
// types) and the dynamic client that reads LocalVolumes and LocalVolumeSets
// (JSON: custom resources have no protobuf). They share rc's rate limit
// settings but not a limiter.
func newClients(rc *rest.Config) (kubernetes.Interface, dynamic.Interface, error) {
	coreConfig := rest.CopyConfig(rc)
	coreConfig.ContentType = runtime.ContentTypeProtobuf
	core, err := kubernetes.NewForConfig(coreConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("creating Kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rest.CopyConfig(rc))
	if err != nil {
		return nil, nil, fmt.Errorf("creating dynamic Kubernetes client: %w", err)
	}
	return core, dyn, nil
}
