package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/testutil/poll"
)

// ClusterOptions configures StartCluster. The zero value is usable once the
// control plane has been built with `make e2e-tools`.
type ClusterOptions struct {
	// BinDir holds etcd, kube-apiserver and kube-controller-manager.
	// Defaults to DefaultControlPlaneDir().
	BinDir string
	// WorkDir receives data, credentials, kubeconfigs and one log file per
	// component. It is created if needed and kept after Stop, so logs can
	// be read after a failure. Empty means a new temporary directory, which
	// Stop removes unless KeepWorkDir is set.
	WorkDir string
	// KeepWorkDir keeps a temporary WorkDir after Stop.
	KeepWorkDir bool
	// KCMControllers are kube-controller-manager controllers to run besides
	// the PV binder, which always runs, e.g. ControllerPVProtection and
	// ControllerPVCProtection. Leave them out to let the sidecar's own
	// finalizer handling act alone.
	KCMControllers []string
	// AuditLog records every API request (Metadata level) for
	// Cluster.AuditEvents.
	AuditLog bool
	// ServiceClusterIPRange is kube-apiserver's --service-cluster-ip-range.
	// Nothing is routed to it; it only needs to be a valid range.
	// Defaults to 10.0.0.0/24.
	ServiceClusterIPRange string
	// APIServerArgs and KCMArgs are appended to the components' flags.
	APIServerArgs []string
	KCMArgs       []string
	// StartTimeout bounds the whole start-up. Defaults to 90s: a cold
	// kube-apiserver on two cores needs a good part of that.
	StartTimeout time.Duration
	// StopTimeout bounds the wait after SIGTERM for each component before
	// SIGKILL. Defaults to DefaultStopTimeout.
	StopTimeout time.Duration
}

// Cluster is a running local control plane.
type Cluster struct {
	opts       ClusterOptions
	workDir    string
	removeWork bool
	logger     klog.Logger

	etcd, apiserver, kcm *Process
	ports                []int
	etcdURL              string

	host  string
	caPEM []byte
	// servingCert and servingKey are kube-apiserver's, which a proxy in
	// front of it presents so that its clients' kubeconfigs still verify.
	servingCert, servingKey string
	adminToken              string
	kubeconfig              string
	auditLog                string
	restConfig              *rest.Config
	client                  kubernetes.Interface

	stopOnce sync.Once
	stopErr  error
}

// StartCluster starts etcd, kube-apiserver and kube-controller-manager on
// loopback ports that are free at the time, and waits until the apiserver is
// ready and the PV binder runs. On error everything already started is
// stopped again.
func StartCluster(ctx context.Context, opts ClusterOptions) (_ *Cluster, err error) {
	logger := klog.FromContext(ctx)
	if opts.BinDir == "" {
		if opts.BinDir, err = DefaultControlPlaneDir(); err != nil {
			return nil, err
		}
	}
	if err := checkBinaries(opts.BinDir, "etcd", "kube-apiserver", "kube-controller-manager"); err != nil {
		return nil, err
	}
	if opts.ServiceClusterIPRange == "" {
		opts.ServiceClusterIPRange = "10.0.0.0/24"
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 90 * time.Second
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = DefaultStopTimeout
	}

	c := &Cluster{opts: opts, logger: logger, workDir: opts.WorkDir}
	if c.workDir == "" {
		if c.workDir, err = os.MkdirTemp("", "csi-e2e-"); err != nil {
			return nil, err
		}
		c.removeWork = !opts.KeepWorkDir
	} else if err := os.MkdirAll(c.workDir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			// Stop's error would hide the start-up one, which says more.
			_ = c.Stop()
		}
	}()

	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	start := time.Now()

	pki, err := writePKI(filepath.Join(c.workDir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("create credentials: %w", err)
	}
	c.caPEM = pki.caPEM
	c.servingCert, c.servingKey = pki.servingCert, pki.servingKey
	if c.adminToken, err = randomToken(32); err != nil {
		return nil, err
	}
	// etcd client, etcd peer, apiserver.
	if c.ports, err = freePorts(3); err != nil {
		return nil, err
	}

	c.etcd, c.etcdURL, err = startEtcd(ctx, etcdOptions{
		binary:      filepath.Join(opts.BinDir, "etcd"),
		workDir:     c.workDir,
		clientPort:  c.ports[0],
		peerPort:    c.ports[1],
		stopTimeout: opts.StopTimeout,
	})
	if err != nil {
		return nil, err
	}

	apiOpts := apiserverOptions{
		binary:                filepath.Join(opts.BinDir, "kube-apiserver"),
		workDir:               c.workDir,
		port:                  c.ports[2],
		etcdURL:               c.etcdURL,
		pki:                   pki,
		adminToken:            c.adminToken,
		serviceClusterIPRange: opts.ServiceClusterIPRange,
		extraArgs:             opts.APIServerArgs,
		stopTimeout:           opts.StopTimeout,
	}
	if opts.AuditLog {
		apiOpts.auditPolicy = filepath.Join(c.workDir, "audit-policy.yaml")
		apiOpts.auditLog = filepath.Join(c.workDir, "audit.log")
		if err := os.WriteFile(apiOpts.auditPolicy, []byte(auditPolicy), 0o644); err != nil {
			return nil, err
		}
		c.auditLog = apiOpts.auditLog
	}
	if c.apiserver, err = startAPIServer(ctx, apiOpts); err != nil {
		return nil, err
	}

	c.host = fmt.Sprintf("https://127.0.0.1:%d", c.ports[2])
	c.kubeconfig = filepath.Join(c.workDir, "admin.kubeconfig")
	if err := writeKubeconfig(c.kubeconfig, c.host, c.caPEM, adminUser, c.adminToken); err != nil {
		return nil, fmt.Errorf("write admin kubeconfig: %w", err)
	}
	c.restConfig = &rest.Config{
		Host:            c.host,
		BearerToken:     c.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.caPEM},
		UserAgent:       "csi-provisioner-e2e",
		// Tests create objects in bursts; client-side throttling would
		// only add latency that hides what the sidecar does.
		QPS:   100,
		Burst: 200,
	}
	if c.client, err = kubernetes.NewForConfig(c.restConfig); err != nil {
		return nil, err
	}

	if c.kcm, err = startKCM(ctx, kcmOptions{
		binary:      filepath.Join(opts.BinDir, "kube-controller-manager"),
		workDir:     c.workDir,
		kubeconfig:  c.kubeconfig,
		controllers: kcmControllers(opts.KCMControllers),
		extraArgs:   opts.KCMArgs,
		stopTimeout: opts.StopTimeout,
	}); err != nil {
		return nil, err
	}
	logger.V(1).Info("Cluster started", "host", c.host, "workDir", c.workDir, "duration", time.Since(start).Round(time.Millisecond))
	return c, nil
}

// Client returns an admin clientset.
func (c *Cluster) Client() kubernetes.Interface { return c.client }

// RESTConfig returns a copy of the admin client configuration, for dynamic
// or other clients.
func (c *Cluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.restConfig) }

// Kubeconfig returns the path of the admin kubeconfig.
func (c *Cluster) Kubeconfig() string { return c.kubeconfig }

// Host returns the apiserver URL.
func (c *Cluster) Host() string { return c.host }

// WorkDir returns the directory holding the cluster's data and logs.
func (c *Cluster) WorkDir() string { return c.workDir }

// Etcd, APIServer and ControllerManager return the component processes, to
// read their logs or to restart them.
func (c *Cluster) Etcd() *Process              { return c.etcd }
func (c *Cluster) APIServer() *Process         { return c.apiserver }
func (c *Cluster) ControllerManager() *Process { return c.kcm }

// EtcdURL is etcd's client URL (plain HTTP on loopback), e.g. to compact
// its history behind kube-apiserver's back.
func (c *Cluster) EtcdURL() string { return c.etcdURL }

// AuditLogPath returns the audit log's path, or "" without
// ClusterOptions.AuditLog.
func (c *Cluster) AuditLogPath() string { return c.auditLog }

// AuditEvents returns the events recorded so far.
func (c *Cluster) AuditEvents() ([]AuditEvent, error) {
	if c.auditLog == "" {
		return nil, ErrNoAuditLog
	}
	return readAuditLog(c.auditLog)
}

// Stop stops kube-controller-manager, kube-apiserver and etcd in that order,
// each with SIGTERM and SIGKILL after the stop timeout, and checks that
// every process is gone and every port released. It is safe to call more than
// once; later calls return the first result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = c.stop() })
	return c.stopErr
}

func (c *Cluster) stop() error {
	var errs []error
	// Clients first, so the apiserver is not left answering a controller
	// manager that is itself shutting down, then the apiserver before its
	// storage.
	procs := []*Process{c.kcm, c.apiserver, c.etcd}
	for _, p := range procs {
		if p == nil {
			continue
		}
		if err := p.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range procs {
		if p == nil {
			continue
		}
		// Signal 0 only asks whether the pid (or a leftover member of its
		// group) still exists.
		if err := syscall.Kill(-p.Pid(), 0); err == nil {
			errs = append(errs, fmt.Errorf("%s (process group %d) still exists after stop", p.Name(), p.Pid()))
		}
	}
	for _, port := range c.ports {
		if !waitPortFree(port, 5*time.Second) {
			errs = append(errs, fmt.Errorf("port %d still in use after stop", port))
		}
	}
	if c.removeWork && len(errs) == 0 {
		if err := os.RemoveAll(c.workDir); err != nil {
			errs = append(errs, err)
		}
	}
	err := errors.Join(errs...)
	if err != nil {
		c.logger.Error(err, "Cluster did not stop cleanly", "workDir", c.workDir)
	} else {
		c.logger.V(1).Info("Cluster stopped", "workDir", c.workDir)
	}
	return err
}

// waitPortFree waits up to timeout for a port to become bindable. The
// processes have exited by then, so this only covers the kernel finishing
// the close.
func waitPortFree(port int, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	free := func(context.Context) (bool, error) { return portFree(port), nil }
	return poll.Until(ctx, 100*time.Millisecond, free, nil) == nil
}
