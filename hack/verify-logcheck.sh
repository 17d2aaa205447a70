#!/usr/bin/env bash
# make verify: log calls in the sidecar's module (cmd/, pkg/, internal/,
# test/, with their tests and the e2e-tagged files of test/e2e; not
# vendor/) and in the test/bench module are structured and contextual, as
# hack/logcheck.conf sets out.
# The checker is logcheck from sigs.k8s.io/logtools (Kubernetes' own
# structured-logging linter), the tool of the hack/lint module, run as go
# vet's analysis tool: it sees the packages as the build does (vendor/),
# and go vet's cache skips the packages that did not change since the last
# run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# Built once into Go's build cache (`go tool -n` prints its path there).
logcheck="$(go -C hack/lint tool -n logcheck)"
# go vet caches each package's findings by the flags, not by what the
# -config file holds: a copy named after its content makes a changed
# configuration check every package again.
sum="$(sha256sum hack/logcheck.conf | cut -c1-16)"
config="$root/_output/logcheck/logcheck-$sum.conf"
mkdir -p "$(dirname "$config")"
cp hack/logcheck.conf "$config"
# test/bench is a module of its own, not vendored: its packages come from
# the module cache, as `make bench` builds them.
if ! { go vet -mod=vendor -trimpath -tags e2e -vettool="$logcheck" -config="$config" ./... &&
	go -C test/bench vet -trimpath -vettool="$logcheck" -config="$config" ./...; }; then
	echo
	echo "logcheck: failed (above). Log calls take the logger from the context"
	echo "(klog.FromContext(ctx)) and log a constant message with key/value pairs:"
	echo "logger.Info(\"Provisioned volume\", \"volume\", name); hack/logcheck.conf sets the checks"
	exit 1
fi
echo "logcheck: ok"
