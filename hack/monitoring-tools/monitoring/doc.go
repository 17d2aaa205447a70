// Package monitoring reads what deploy/monitoring ships (the rule file, its
// PrometheusRule wrapper and the Grafana dashboard), writes the files made
// from the rule file (the wrapper and the list of metric names), and finds
// the metric names each PromQL expression reads. Its tests, run by make
// test through hack/test-monitoring.sh, check those files against each
// other and against the runbooks in docs/observing.md;
// hack/update-monitoring.sh writes them.
//
// It is part of the hack/monitoring-tools module, whose go.mod also pins
// promtool's version, so that Prometheus itself never enters the sidecar's
// go.mod or vendor/.
package monitoring
