#!/usr/bin/env bash
# Fails if the generated files committed under pkg/apis/ (deepcopy),
# deploy/kubernetes/crds/ (CRDs) and pkg/generated/ (clientset, listers and
# informers) differ from what hack/update-codegen.sh writes now, including
# files that are no longer generated. The work tree is not changed:
# generation runs in a temporary copy of the module and the differences are
# printed.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The generators load the API packages, so the copy is a module of its own:
# go.mod, go.sum, the packages (pkg/ is small) and vendor/ (linked, read only).
cp "$root/go.mod" "$root/go.sum" "$tmp/"
cp -a "$root/pkg" "$tmp/pkg"
ln -s "$root/vendor" "$tmp/vendor"
mkdir -p "$tmp/deploy/kubernetes/crds"

CODEGEN_ROOT="$tmp" "$root/hack/update-codegen.sh" >/dev/null

status=0
for dir in pkg/apis pkg/generated deploy/kubernetes/crds; do
	if ! diff -ru "$root/$dir" "$tmp/$dir"; then
		status=1
	fi
done
if [[ $status -ne 0 ]]; then
	echo
	echo "generated files are out of date (diff above: committed -> regenerated):"
	echo "run 'make generate' (hack/update-codegen.sh) and commit the result"
	exit 1
fi
echo "verify-codegen: ok"
