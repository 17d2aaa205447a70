#!/usr/bin/env bash
# make test: what deploy/monitoring ships. promtool checks the rule file and
# runs its unit tests on synthetic series (rules-tests.yaml); the Go tests
# of hack/monitoring-tools check that the PrometheusRule carries the same
# groups, that every alert has its labels, annotations and runbook (a
# section of docs/observing.md), that the dashboard's queries are PromQL
# that parses, and that metric-names.txt (which the e2e test scrapes for)
# lists what the rules and the dashboard read.
# promtool is built at the Prometheus version hack/monitoring-tools/go.mod
# requires, in Prometheus' own module (its go.mod and Go's checksum
# database pin what it builds from), into _output/tools/: a few minutes the
# first time, then reused until that version or the Go release changes.
# The remove_all_sd tag leaves out the service discovery plugins, whose
# cloud SDKs the rule checks never use; Go then downloads only the modules
# of the packages it compiles (about 160 MB, not 270 MB, 1.8 GB unpacked).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

version="$(go -C hack/monitoring-tools list -m -f '{{.Version}}' github.com/prometheus/prometheus)"
GOBIN="$root/_output/tools" go install -trimpath -tags remove_all_sd \
	"github.com/prometheus/prometheus/cmd/promtool@$version"
promtool="$root/_output/tools/promtool"
"$promtool" check rules deploy/monitoring/rules/csi-provisioner.rules.yaml
"$promtool" test rules deploy/monitoring/rules-tests.yaml
go -C hack/monitoring-tools test -trimpath -count=1 ./...
