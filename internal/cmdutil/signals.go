package cmdutil

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// ShutdownContext is canceled by the first SIGTERM or interrupt, which
// starts a clean shutdown; a second one kills the process the default way.
func ShutdownContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}
