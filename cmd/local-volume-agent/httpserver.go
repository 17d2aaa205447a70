package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
)

// shutdownTimeout bounds how long in-flight requests may delay exit.
const shutdownTimeout = 5 * time.Second

// newMux serves the legacy registry (the agent's metrics, work queue, Go
// runtime and process metrics) at /metrics and a liveness check at /healthz.
func newMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", legacyregistry.Handler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}

type httpServer struct {
	srv  *http.Server
	addr net.Addr
	// failed receives the error if serving stops on its own.
	failed chan error
}

// startHTTPServer listens on address before returning, so a bad or busy
// address fails start-up.
func startHTTPServer(ctx context.Context, address string, handler http.Handler) (*httpServer, error) {
	lis, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("listening on --http-endpoint %q: %w", address, err)
	}
	s := &httpServer{
		srv: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: 10 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return ctx },
		},
		addr:   lis.Addr(),
		failed: make(chan error, 1),
	}
	klog.FromContext(ctx).Info("Serving metrics and health check", "address", s.addr.String())
	go func() {
		if err := s.srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
			s.failed <- fmt.Errorf("serving on %q: %w", address, err)
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
