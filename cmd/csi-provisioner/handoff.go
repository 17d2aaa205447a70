package main

import (
	"context"
	"time"
)

// handOffTimeout bounds what the controllers do once the sidecar stops
// serving claims (shutdown, or leadership lost), well inside the 30
// seconds a pod is given to stop by default.
const handOffTimeout = 10 * time.Second

// handOff runs a controller's hand-off after its workers stopped, with a
// context of its own: ctx has ended by then.
func handOff(ctx context.Context, do func(context.Context) int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handOffTimeout)
	defer cancel()
	do(ctx)
}
