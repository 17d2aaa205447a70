package main

import (
	"net/http"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type muxOptions struct {
	// Gatherers are the registries served at MetricsPath.
	Gatherers prometheus.Gatherers
	// CSIMetrics serves pprof, as upstream's mux does.
	CSIMetrics  metrics.CSIMetricsManager
	MetricsPath string
	EnablePprof bool
}

// newMux returns the diagnostics handler: metrics, and pprof on request. The
// leader election health check is added by the elector.
func newMux(o muxOptions) *http.ServeMux {
	mux := http.NewServeMux()
	// As upstream's handler, this one counts its own scrapes
	// (promhttp_metric_handler_requests_total and _in_flight) in a
	// registry it also serves; a fresh one per mux, so a second run in a
	// process registers nothing twice.
	scrapes := prometheus.NewRegistry()
	gatherers := append(prometheus.Gatherers{scrapes}, o.Gatherers...)
	mux.Handle(o.MetricsPath, promhttp.InstrumentMetricHandler(scrapes,
		promhttp.HandlerFor(gatherers, promhttp.HandlerOpts{})))
	if o.EnablePprof {
		o.CSIMetrics.RegisterPprofToServer(mux)
	}
	return mux
}
