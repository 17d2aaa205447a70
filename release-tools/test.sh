#!/usr/bin/env bash
# Unit tests with the race detector, then csi-sanity on the mock driver with
# its spec counts printed.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -mod=vendor -race -count=1 ./...
# test/bench (make bench) is a Go module of its own: ./... above stops at it.
(cd test/bench && go test -race -count=1 ./...)
# hack/image too: its test runs make image and opens the archive.
(cd hack/image && go test -race -count=1 ./...)
echo "--- csi-sanity on the mock driver"
go test -mod=vendor -count=1 -run 'TestSanity' -v ./pkg/mockdriver/ | grep -E '^(=== RUN|--- |PASS|FAIL|ok|csi-sanity)' 
