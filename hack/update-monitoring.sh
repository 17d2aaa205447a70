#!/usr/bin/env bash
# Writes the files of deploy/monitoring made from others: the PrometheusRule
# wrapper (prometheus-rules.yaml) of rules/csi-provisioner.rules.yaml, and
# metric-names.txt, every metric name the rules and grafana-dashboard.json
# read. Run it after editing either; make test fails while they differ.
set -euo pipefail
cd "$(dirname "$0")/.."
go -C hack/monitoring-tools run ./cmd/update-monitoring --root="$PWD"
