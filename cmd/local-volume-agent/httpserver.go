package main

import (
	"net/http"

	"k8s.io/component-base/metrics/legacyregistry"
)

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
