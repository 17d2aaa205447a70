#!/usr/bin/env bash
# make test: what deploy/monitoring ships. promtool checks the rule file and
# runs its unit tests on synthetic series (rules-tests.yaml); the Go tests
# of hack/monitoring-tools check that the PrometheusRule carries the same
# groups, that every alert has its labels, annotations and runbook (a
# section of docs/observing.md), that the dashboard's queries are PromQL
# that parses, and that metric-names.txt (which the e2e test scrapes for)
# lists what the rules and the dashboard read.
# promtool is the tool of the hack/monitoring-tools module, built by
# `go tool` into Go's build cache (a few minutes the first time, then found
# there until hack/monitoring-tools/go.mod or the Go release changes).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

promtool="$(go -C hack/monitoring-tools tool -n promtool)"
"$promtool" check rules deploy/monitoring/rules/csi-provisioner.rules.yaml
"$promtool" test rules deploy/monitoring/rules-tests.yaml
go -C hack/monitoring-tools test -trimpath -count=1 ./...
