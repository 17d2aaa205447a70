package main

import (
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
)

// restConfig builds the API server configuration from the flags (see
// cmdutil.RESTConfig for the KUBECONFIG rule). The user agent is
// client-go's default, which upstream sends: the binary's name, client-go's
// version, OS and architecture. The API server takes the default field
// manager of the sidecar's writes from it (the binary's name), so audit
// filters and managedFields read as upstream's.
func restConfig(logger klog.Logger, cfg *config, getenv func(string) string) (*rest.Config, error) {
	return cmdutil.RESTConfig(logger, cfg.kube, rest.DefaultKubernetesUserAgent(), getenv)
}

// kubeClients are the API clients of the process, built once by run.
type kubeClients struct {
	// restConfig is what the clients are made from; capacity tracking
	// makes its own client from it, and only when it runs.
	restConfig *rest.Config
	// core serves the controllers; it speaks protobuf, which is cheaper for
	// the built-in types it handles.
	core kubernetes.Interface
	// election is separate so that a busy, throttled core client cannot
	// delay lease renewal.
	election kubernetes.Interface
	// protection sends the requests of protection (the provisioning-,
	// cloning- and restore-protection finalizers on claims, PV and PVC
	// protection's finalizers and pod reads) on a rate limit of its own
	// (--kube-api-protection-qps/burst): they are requests upstream does
	// not make, and sharing the core client's budget would slow every PV
	// creation behind them.
	protection kubernetes.Interface
	// events sends the events of the sidecar and of the provisioning
	// library (--kube-api-events-qps/burst): on the core client they wait
	// behind PV and claim writes, and under churn are dropped from the
	// recorders' full queues or arrive minutes late.
	events kubernetes.Interface
	// local reads and writes LocalVolumes and LocalVolumeSets (JSON: custom
	// resources have no protobuf); it shares the core client's rate limit
	// settings.
	local versioned.Interface
	// snapshots reads the VolumeSnapshots claims are restored from; dynamic
	// watches ReferenceGrants. Custom resources speak JSON; each client has
	// the core client's rate limit settings, as upstream's have.
	snapshots snapclient.Interface
	dynamic   dynamic.Interface
}

// clientLimits are a client's QPS and burst.
type clientLimits struct {
	QPS   float32
	Burst int
}

// newKubeClients builds the clients from rc (the core client's limits) and
// the protection and events clients' limits. Each client has a rate limiter
// of its own.
func newKubeClients(rc *rest.Config, protectionLimits, eventLimits clientLimits) (*kubeClients, error) {
	coreConfig := cmdutil.ProtobufConfig(rc)
	var b cmdutil.Clients
	c := &kubeClients{
		restConfig: rc,
		core:       cmdutil.NewClient(&b, "Kubernetes", kubernetes.NewForConfig, coreConfig),
		election:   cmdutil.NewClient(&b, "leader election", kubernetes.NewForConfig, coreConfig),
		protection: cmdutil.NewClient(&b, "protection", kubernetes.NewForConfig,
			cmdutil.LimitedConfig(coreConfig, protectionLimits.QPS, protectionLimits.Burst)),
		events: cmdutil.NewClient(&b, "events", kubernetes.NewForConfig,
			cmdutil.LimitedConfig(coreConfig, eventLimits.QPS, eventLimits.Burst)),
		local:     cmdutil.NewClient(&b, "LocalVolume", versioned.NewForConfig, rc),
		snapshots: cmdutil.NewClient(&b, "VolumeSnapshot", snapclient.NewForConfig, rc),
		dynamic:   cmdutil.NewClient(&b, "ReferenceGrant", dynamic.NewForConfig, rc),
	}
	if b.Err != nil {
		return nil, b.Err
	}
	return c, nil
}
