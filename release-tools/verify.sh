#!/usr/bin/env bash
# gofmt, go vet and a vendor/ that matches go.mod and go.sum. Nothing in the
# work tree is changed: differences are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# The Go files git knows outside vendor/, less those deleted in the work
# tree but not yet in the index.
go_files=()
while IFS= read -r f; do
	if [[ -f "$f" ]]; then go_files+=("$f"); fi
done < <(git ls-files --cached --others --exclude-standard -- '*.go' ':!:vendor/')
unformatted=$(gofmt -l "${go_files[@]}")
if [ -n "$unformatted" ]; then
	echo "gofmt needed on:"; echo "$unformatted"; status=1
fi

# -trimpath keeps compiled packages out of the build cache's keys' paths, so
# a fresh clone elsewhere (CI) reuses what an earlier run compiled.
go vet -mod=vendor -trimpath ./... || status=1
# The e2e tests and their framework build only with the e2e tag.
go vet -mod=vendor -trimpath -tags e2e ./test/e2e/... || status=1

if ! go mod tidy -diff; then
	echo "go.mod/go.sum are not tidy: run 'go mod tidy'"; status=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go mod vendor -o "$tmp/vendor"
if ! diff -r vendor "$tmp/vendor" >/dev/null; then
	echo "vendor/ is out of date: run 'go mod vendor' and commit"; status=1
fi

# test/bench (make bench) is a module of its own, not vendored, so that
# gonum/plot stays out of the sidecar's go.mod and vendor/.
(cd test/bench && go vet -trimpath ./...) || status=1
if ! (cd test/bench && go mod tidy -diff); then
	echo "test/bench/go.mod/go.sum are not tidy: run 'go mod tidy' in test/bench"; status=1
fi

# hack/image (make image) keeps go-containerregistry out of the sidecar's
# module the same way.
(cd hack/image && go vet -trimpath ./...) || status=1
if ! (cd hack/image && go mod tidy -diff); then
	echo "hack/image/go.mod/go.sum are not tidy: run 'go mod tidy' in hack/image"; status=1
fi

# hack/monitoring-tools (promtool and the checks of deploy/monitoring) keeps
# Prometheus out of the sidecar's module the same way.
(cd hack/monitoring-tools && go vet -trimpath ./...) || status=1
if ! (cd hack/monitoring-tools && go mod tidy -diff); then
	echo "hack/monitoring-tools/go.mod/go.sum are not tidy: run 'go mod tidy' in hack/monitoring-tools"; status=1
fi

if [ $status -eq 0 ]; then echo "verify: ok"; fi
exit $status
