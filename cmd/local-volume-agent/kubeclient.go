package main

import (
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
)

// restConfig builds the API server configuration from the flags, as
// csi-provisioner does (see cmdutil.RESTConfig).
func restConfig(logger klog.Logger, cfg *config, getenv func(string) string) (*rest.Config, error) {
	return cmdutil.RESTConfig(logger, cfg.kube, "local-volume-agent/"+version, getenv)
}

// newClients returns the Kubernetes client (protobuf, cheaper for the
// built-in types) and the generated client that reads LocalVolumes and
// LocalVolumeSets (JSON: custom resources have no protobuf). They share
// rc's rate limit settings but not a limiter.
func newClients(rc *rest.Config) (kubernetes.Interface, versioned.Interface, error) {
	var b cmdutil.Clients
	core := cmdutil.NewClient(&b, "Kubernetes", kubernetes.NewForConfig, cmdutil.ProtobufConfig(rc))
	localClient := cmdutil.NewClient(&b, "LocalVolume", versioned.NewForConfig, rest.CopyConfig(rc))
	if b.Err != nil {
		return nil, nil, b.Err
	}
	return core, localClient, nil
}
