// Package testutil is the harness the controllers' unit tests share: a
// fake API server with a real one's semantics (NewClientset), an
// environment of informers, an event recorder, a metrics registry and a
// logging context over it (NewEnv), object builders with options
// (NewClaim, NewPV, NewClass...), reads and writes of typed clients (Get,
// Update...), the recorded requests and scripted failures of a fake
// (Actions, FailNext), and waits on poll.Until (Eventually, Await,
// WaitCached, Syncs).
package testutil
