package mockdriver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/protosanitizer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// gracePeriod bounds how long Serve waits for in-flight calls when its
// context ends; calls still running afterwards are cut off.
const gracePeriod = 5 * time.Second

// mutatingMethods are logged at the default level; the rest (probes,
// capability queries) only at higher verbosity to keep logs readable.
var mutatingMethods = map[string]bool{
	"CreateVolume":        true,
	"DeleteVolume":        true,
	"CreateSnapshot":      true,
	"DeleteSnapshot":      true,
	"NodePublishVolume":   true,
	"NodeUnpublishVolume": true,
}

// SocketPath returns the file system path of a unix endpoint given as
// "unix:///abs/path", "unix:rel/path" or a plain path.
func SocketPath(endpoint string) (string, error) {
	p := endpoint
	switch {
	case strings.HasPrefix(endpoint, "unix://"):
		p = strings.TrimPrefix(endpoint, "unix://")
	case strings.HasPrefix(endpoint, "unix:"):
		p = strings.TrimPrefix(endpoint, "unix:")
	case strings.Contains(endpoint, "://"):
		return "", fmt.Errorf("endpoint %q: only unix sockets are supported", endpoint)
	}
	if p == "" {
		return "", fmt.Errorf("endpoint %q has no socket path", endpoint)
	}
	return p, nil
}

// Listen opens the unix socket for endpoint. A socket file left behind by a
// dead driver is removed; one a live process still answers on, or a file
// that is not a socket, is an error.
func Listen(endpoint string) (net.Listener, error) {
	p, err := SocketPath(endpoint)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return nil, fmt.Errorf("creating socket directory: %w", err)
	}
	info, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("checking socket %s: %w", p, err)
	case info.Mode()&fs.ModeSocket == 0:
		return nil, fmt.Errorf("%s exists and is not a socket", p)
	default:
		if conn, err := net.DialTimeout("unix", p, time.Second); err == nil {
			_ = conn.Close()
			return nil, fmt.Errorf("socket %s is in use by another process", p)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("removing stale socket %s: %w", p, err)
		}
	}
	lis, err := net.Listen("unix", p)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", p, err)
	}
	return lis, nil
}

// Serve listens on endpoint and serves until ctx ends, then stops
// gracefully. It returns nil after a stop caused by ctx.
func (d *Driver) Serve(ctx context.Context, endpoint string) error {
	lis, err := Listen(endpoint)
	if err != nil {
		return err
	}
	return d.ServeListener(ctx, lis)
}

// ServeListener is Serve on an already open listener, which lets callers
// know the socket exists before serving starts. The listener is closed
// when serving stops.
func (d *Driver) ServeListener(ctx context.Context, lis net.Listener) error {
	if !d.serving.CompareAndSwap(false, true) {
		_ = lis.Close()
		return errors.New("driver is already serving")
	}
	defer d.serving.Store(false)

	logger := klog.FromContext(ctx).WithName("mockdriver")
	// Calls held by a crashed driver wait for this instead of their own
	// context, whose deadline would otherwise produce a reply.
	released := make(chan struct{})
	release := sync.OnceFunc(func() { close(released) })
	defer release()
	srv := grpc.NewServer(grpc.UnaryInterceptor(d.interceptor(klog.NewContext(ctx, logger), released)))
	csi.RegisterIdentityServer(srv, &identityServer{d: d})
	csi.RegisterControllerServer(srv, &controllerServer{d: d})
	csi.RegisterNodeServer(srv, &nodeServer{d: d})

	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	logger.Info("Serving CSI", "address", lis.Addr().String(), "driver", d.name, "node", d.nodeID)

	select {
	case err := <-served:
		srv.Stop()
		return fmt.Errorf("serving CSI: %w", err)
	case <-ctx.Done():
	}

	if d.crashed.Load() {
		// Drop connections first so held calls never get a reply.
		srv.Stop()
		release()
	} else {
		stopped := make(chan struct{})
		go func() {
			srv.GracefulStop()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(gracePeriod):
			srv.Stop()
			release()
			<-stopped
		}
	}
	<-served
	logger.Info("Stopped serving CSI")
	return nil
}

// interceptor counts and logs every call, gives handlers a context that
// also ends when Serve stops, and withholds the reply of a crashed call.
func (d *Driver) interceptor(serveCtx context.Context, released <-chan struct{}) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		method := path.Base(info.FullMethod)
		d.countCall(method)
		logger := klog.FromContext(serveCtx).WithValues("method", method)

		if d.crashed.Load() {
			<-released
			return nil, status.Error(codes.Unavailable, errCrashed.Error())
		}

		callCtx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(serveCtx, func() { cancel(errShuttingDown) })
		defer stop()
		callCtx = klog.NewContext(callCtx, logger)

		logger.V(5).Info("Request", "request", protosanitizer.StripSecrets(req))
		start := time.Now()
		resp, err := handler(callCtx, req)
		if errors.Is(err, errCrashed) {
			<-released
			return nil, status.Error(codes.Unavailable, errCrashed.Error())
		}

		duration := time.Since(start)
		switch {
		case err != nil:
			st := status.Convert(err)
			logger.Info("Call failed", "code", st.Code().String(), "message", st.Message(), "duration", duration)
		case mutatingMethods[method]:
			logger.Info("Call succeeded", "duration", duration)
		default:
			logger.V(4).Info("Call succeeded", "duration", duration)
		}
		logger.V(5).Info("Response", "response", protosanitizer.StripSecrets(resp))
		return resp, err
	}
}
