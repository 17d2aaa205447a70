package testutil

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// EnvOptions say what an Env starts from.
type EnvOptions struct {
	// Objects are in the fake API server from the start.
	Objects []runtime.Object
	// Client, if set, is the env's fake API server instead of one made
	// of Objects with the API server's semantics: for a test that needs
	// the plain fake's.
	Client *fake.Clientset
	// StatusSubresources are the resources with a status subresource
	// (see APIServerOptions).
	StatusSubresources []string
	// InformerOptions tune the informer factory, e.g. with a transform.
	InformerOptions []informers.SharedInformerOption
	// Metrics are registered in the env's registry.
	Metrics []MetricSet
	// LogVerbosity is the verbosity of the test's logger; 0 is ktesting's
	// default.
	LogVerbosity int
	// Timeout bounds the env's waits; 0 is 5 seconds.
	Timeout time.Duration
}

// Env is what a controller's test runs it over: a fake API server with
// its semantics, an informer factory of it, an event recorder, a metrics
// registry and a context whose logger writes to the test's log. All of it
// ends with the test.
type Env struct {
	Ctx       context.Context
	Logs      *Logs
	Client    *fake.Clientset
	Informers informers.SharedInformerFactory
	Events    *Events
	Registry  *Registry
	Timeout   time.Duration
}

// NewEnv builds an Env; its informers start with StartInformers, once the
// controller has asked the factory for those it uses.
func NewEnv(t testing.TB, o EnvOptions) *Env {
	t.Helper()
	ctx, logs := LoggingContext(t, o.LogVerbosity)
	client := o.Client
	if client == nil {
		client = NewClientsetWithOptions(APIServerOptions{StatusSubresources: o.StatusSubresources}, o.Objects...)
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	return &Env{
		Ctx:       ctx,
		Logs:      logs,
		Client:    client,
		Informers: informers.NewSharedInformerFactoryWithOptions(client, 0, o.InformerOptions...),
		Events:    NewEvents(),
		Registry:  NewRegistry(o.Metrics...),
		Timeout:   timeout,
	}
}

// StartInformers starts the env's informers and those of more factories
// (of other clientsets), and waits until their caches have synced.
func (e *Env) StartInformers(t testing.TB, more ...InformerFactory) {
	t.Helper()
	StartInformers(t, e.Ctx, append([]InformerFactory{e.Informers}, more...)...)
}

// Run runs run (a controller's Run) until the test ends; see
// RunUntilCleanup.
func (e *Env) Run(t testing.TB, run func(ctx context.Context)) {
	t.Helper()
	RunUntilCleanup(t, e.Ctx, run)
}

// Eventually is Eventually with the env's timeout.
func (e *Env) Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Eventually(t, e.Timeout, what, cond)
}

// Await is Await with the env's timeout.
func (e *Env) Await(t testing.TB, what string, check func() error) {
	t.Helper()
	Await(t, e.Timeout, what, check)
}
