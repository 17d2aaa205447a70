package cmdutil

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// Clients builds a command's API clients one after the other and keeps the
// first error, naming the client that failed, so that the command checks
// once when all are built. After an error it builds no more.
type Clients struct {
	Err error
}

// NewClient makes the client what with newFor from cfg, unless b already
// failed.
func NewClient[T any](b *Clients, what string, newFor func(*rest.Config) (T, error), cfg *rest.Config) T {
	var client T
	if b.Err != nil {
		return client
	}
	client, err := newFor(cfg)
	if err != nil {
		b.Err = fmt.Errorf("creating %s client: %w", what, err)
	}
	return client
}

// ProtobufConfig is a copy of rc that speaks protobuf, cheaper than JSON
// for the built-in types (custom resources have no protobuf).
func ProtobufConfig(rc *rest.Config) *rest.Config {
	c := rest.CopyConfig(rc)
	c.ContentType = runtime.ContentTypeProtobuf
	return c
}

// LimitedConfig is a copy of rc with the rate limit qps and burst.
func LimitedConfig(rc *rest.Config, qps float32, burst int) *rest.Config {
	c := rest.CopyConfig(rc)
	c.QPS, c.Burst = qps, burst
	return c
}
