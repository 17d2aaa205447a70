package framework

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// adminUser is the static-token identity of the cluster's admin kubeconfig.
// system:masters bypasses RBAC, which is what the test driver code and
// kube-controller-manager need; the sidecar gets a ServiceAccount instead.
const adminUser = "e2e-admin"

// apiserverOptions configures kube-apiserver.
type apiserverOptions struct {
	binary                string
	workDir               string
	port                  int
	etcdURL               string
	pki                   *pkiFiles
	adminToken            string
	serviceClusterIPRange string
	auditPolicy           string
	auditLog              string
	extraArgs             []string
	stopTimeout           time.Duration
}

// startAPIServer runs kube-apiserver on 127.0.0.1 and waits for /readyz, which
// includes the RBAC bootstrap roles being in place.
func startAPIServer(ctx context.Context, opts apiserverOptions) (*Process, error) {
	tokenFile := filepath.Join(opts.workDir, "tokens.csv")
	line := fmt.Sprintf("%s,%s,%s-uid,\"system:masters\"\n", opts.adminToken, adminUser, adminUser)
	if err := os.WriteFile(tokenFile, []byte(line), 0o600); err != nil {
		return nil, err
	}
	args := []string{
		"--etcd-servers=" + opts.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", opts.port),
		// The serving certificate is ours (signed by a CA the kubeconfig
		// trusts), so clients verify TLS; --cert-dir only keeps anything
		// else the apiserver generates inside the work dir.
		"--cert-dir=" + filepath.Join(opts.workDir, "apiserver-certs"),
		"--tls-cert-file=" + opts.pki.servingCert,
		"--tls-private-key-file=" + opts.pki.servingKey,
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + opts.pki.saPub,
		"--service-account-signing-key-file=" + opts.pki.saKey,
		"--service-cluster-ip-range=" + opts.serviceClusterIPRange,
		// Without kube-controller-manager's service-account controllers
		// no "default" ServiceAccount exists, and this plugin would reject
		// every pod a test creates.
		"--disable-admission-plugins=ServiceAccount",
		"--profiling=false",
	}
	if opts.auditLog != "" {
		args = append(args,
			"--audit-policy-file="+opts.auditPolicy,
			"--audit-log-path="+opts.auditLog,
			"--audit-log-format=json",
			// Events are written as requests complete, so a test that
			// reads the log right after an action sees it.
			"--audit-log-mode=blocking",
			// One file, never rotated: its readers read it whole, and a
			// long run (a soak) writes more than the default 100 MB.
			"--audit-log-maxsize=0",
		)
	}
	args = append(args, opts.extraArgs...)
	proc, err := StartProcess(ctx, ProcessOptions{
		Name:        "kube-apiserver",
		Path:        opts.binary,
		Args:        args,
		LogFile:     filepath.Join(opts.workDir, "kube-apiserver.log"),
		StopTimeout: opts.stopTimeout,
	})
	if err != nil {
		return nil, err
	}
	client, err := tlsClient(opts.pki.caPEM)
	if err != nil {
		proc.Kill()
		return nil, err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/readyz", opts.port)
	if err := waitUntil(ctx, "kube-apiserver to be ready", proc, httpOK(client, url, opts.adminToken, "ok")); err != nil {
		proc.Kill()
		return nil, err
	}
	return proc, nil
}

// tlsClient returns an HTTP client that trusts only the cluster's CA.
func tlsClient(caPEM []byte) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("no certificate in the cluster CA")
	}
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}, nil
}
