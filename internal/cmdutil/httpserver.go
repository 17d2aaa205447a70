package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/klog/v2"
)

// shutdownTimeout bounds how long in-flight requests may delay exit.
const shutdownTimeout = 5 * time.Second

// HTTPServerOptions configure StartHTTPServer.
type HTTPServerOptions struct {
	Address string
	Handler http.Handler
	// AddressName names the address in a listen error, e.g. the flag.
	AddressName string
	// What the server serves, for its log line and serving errors.
	What string
}

// HTTPServer is a started metrics / health server.
type HTTPServer struct {
	srv *http.Server
	// Failed receives the error if serving stops on its own.
	Failed <-chan error
}

// StartHTTPServer listens on the address before returning, so a bad or busy
// address fails start-up, then serves in the background.
func StartHTTPServer(ctx context.Context, opts HTTPServerOptions) (*HTTPServer, error) {
	lis, err := net.Listen("tcp", opts.Address)
	if err != nil {
		return nil, fmt.Errorf("listening on %s %q: %w", opts.AddressName, opts.Address, err)
	}
	failed := make(chan error, 1)
	s := &HTTPServer{
		srv: &http.Server{
			Handler:           opts.Handler,
			ReadHeaderTimeout: 10 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return ctx },
		},
		Failed: failed,
	}
	klog.FromContext(ctx).Info("Serving "+opts.What, "address", lis.Addr().String())
	go func() {
		if err := s.srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
			failed <- fmt.Errorf("serving %s on %q: %w", opts.What, opts.Address, err)
		}
	}()
	return s, nil
}

// Shutdown stops accepting requests and waits briefly for those in flight.
func (s *HTTPServer) Shutdown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
