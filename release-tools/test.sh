#!/usr/bin/env bash
# Unit tests with the race detector, then csi-sanity on the mock driver with
# its spec counts printed.
set -euo pipefail
cd "$(dirname "$0")/.."
# -trimpath: see verify.sh (a fresh clone reuses the build cache).
# -vet=off: make verify runs the whole of go vet on every package; the
# subset go test would run again costs a tenth of a cold build.
go test -mod=vendor -trimpath -race -vet=off -count=1 ./...
# test/bench (make bench) is a Go module of its own: ./... above stops at it.
(cd test/bench && go test -trimpath -race -vet=off -count=1 ./...)
# hack/image too: its test runs make image and opens the archive.
(cd hack/image && go test -trimpath -race -vet=off -count=1 ./...)
# deploy/monitoring: promtool checks and unit tests of the alerts, and the
# dashboard's and PrometheusRule's checks (hack/monitoring-tools).
echo "--- deploy/monitoring"
hack/test-monitoring.sh
echo "--- csi-sanity on the mock driver"
# -race -vet=off as above, so the test binary is the one already built.
go test -mod=vendor -trimpath -race -vet=off -count=1 -run 'TestSanity' -v ./internal/mockdriver/ | grep -E '^(=== RUN|--- |PASS|FAIL|ok|csi-sanity)' 
