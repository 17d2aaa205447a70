package framework

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigContext is the single context name in every kubeconfig written
// here.
const kubeconfigContext = "e2e"

// writeKubeconfig writes a kubeconfig for server that trusts caPEM and
// authenticates with a bearer token, for processes such as the sidecar or
// kube-controller-manager (and for kubectl when debugging a kept work dir).
func writeKubeconfig(path, server string, caPEM []byte, user, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[kubeconfigContext] = &clientcmdapi.Cluster{
		Server:                   server,
		CertificateAuthorityData: caPEM,
	}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[kubeconfigContext] = &clientcmdapi.Context{Cluster: kubeconfigContext, AuthInfo: user}
	cfg.CurrentContext = kubeconfigContext
	return clientcmd.WriteToFile(*cfg, path)
}
