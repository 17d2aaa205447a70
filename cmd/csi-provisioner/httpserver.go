package main

import (
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type muxOptions struct {
	// Gatherers are the registries served at MetricsPath.
	Gatherers   prometheus.Gatherers
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
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}
