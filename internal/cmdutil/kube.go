package cmdutil

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// KubeOptions are the API client flags every command has.
type KubeOptions struct {
	Kubeconfig string
	Master     string
	QPS        float32
	Burst      int
}

// RESTConfig builds the API server configuration as upstream
// external-provisioner does: the KUBECONFIG environment variable overrides
// --kubeconfig; a kubeconfig or --master means out of cluster, otherwise the
// in-cluster service account. userAgent names the command to the server.
func RESTConfig(logger klog.Logger, opts KubeOptions, userAgent string, getenv func(string) string) (*rest.Config, error) {
	kubeconfig := opts.Kubeconfig
	if env := getenv("KUBECONFIG"); env != "" {
		logger.Info("Using the KUBECONFIG environment variable", "kubeconfig", env)
		kubeconfig = env
	}
	var (
		rc  *rest.Config
		err error
	)
	if opts.Master != "" || kubeconfig != "" {
		rc, err = clientcmd.BuildConfigFromFlags(opts.Master, kubeconfig)
	} else {
		rc, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("building Kubernetes client configuration: %w", err)
	}
	rc.QPS = opts.QPS
	rc.Burst = opts.Burst
	rc.UserAgent = userAgent
	return rc, nil
}
