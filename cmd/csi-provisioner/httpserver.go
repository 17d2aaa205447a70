package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"k8s.io/klog/v2"
)

// shutdownTimeout bounds how long in-flight diagnostics requests may delay exit.
const shutdownTimeout = 5 * time.Second

type muxOptions struct {
	Metrics     metrics.CSIMetricsManager
	MetricsPath string
	EnablePprof bool
}

// newMux returns the diagnostics handler: metrics, and pprof on request. The
// leader election health check is added by the elector.
func newMux(o muxOptions) *http.ServeMux {
	mux := http.NewServeMux()
	o.Metrics.RegisterToServer(mux, o.MetricsPath)
	if o.EnablePprof {
		o.Metrics.RegisterPprofToServer(mux)
	}
	return mux
}

// httpServer serves the diagnostics endpoint regardless of leadership, so
// that standby replicas can be scraped and health-checked too.
type httpServer struct {
	srv *http.Server
	// failed receives the error if serving stops on its own.
	failed chan error
}

// startHTTPServer listens on address before returning, so a bad or busy
// address fails start-up.
func startHTTPServer(ctx context.Context, address string, handler http.Handler) (*httpServer, error) {
	lis, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("listening on diagnostics address %q: %w", address, err)
	}
	s := &httpServer{
		srv: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: 10 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return ctx },
		},
		failed: make(chan error, 1),
	}
	klog.FromContext(ctx).Info("Serving diagnostics", "address", lis.Addr().String())
	go func() {
		if err := s.srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
			s.failed <- fmt.Errorf("serving diagnostics on %q: %w", address, err)
		}
	}()
	return s, nil
}

// shutdown stops accepting requests and waits briefly for those in flight.
func (s *httpServer) shutdown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
