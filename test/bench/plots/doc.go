// Package plots draws the PNGs of report.md from what the parts of `make
// bench` measured: provisioning throughput and latency per scenario and
// configuration, each scenario's latency distribution, the sidecar's
// requests per volume by verb and resource, its peak RSS per memory variant
// against the goals, and PVC protection's time until every claim is gone.
// The baseline, when it ran, is drawn in grey.
package plots
