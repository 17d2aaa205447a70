package main

import (
	"net/http"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
)

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
