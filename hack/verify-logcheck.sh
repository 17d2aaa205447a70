#!/usr/bin/env bash
# make verify: log calls in the sidecar's module (cmd/, pkg/, internal/,
# test/, with their tests and the e2e-tagged files of test/e2e; not
# vendor/) are structured and contextual, as hack/logcheck.conf sets out.
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
if ! go vet -mod=vendor -trimpath -tags e2e -vettool="$logcheck" -config="$root/hack/logcheck.conf" ./...; then
	echo
	echo "logcheck: failed (above). Log calls take the logger from the context"
	echo "(klog.FromContext(ctx)) and log a constant message with key/value pairs:"
	echo "logger.Info(\"Provisioned volume\", \"volume\", name); hack/logcheck.conf sets the checks"
	exit 1
fi
echo "logcheck: ok"
