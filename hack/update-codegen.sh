#!/usr/bin/env bash
# Generates the code and manifests derived from the API types in pkg/apis/:
#   - zz_generated.deepcopy.go in each API package (controller-gen object)
#   - one CustomResourceDefinition per kind in deploy/kubernetes/crds/
#     (controller-gen crd)
#
# controller-gen is built from the hack/codegen module (which pins
# sigs.k8s.io/controller-tools) into a git-ignored folder. The first build
# downloads and compiles controller-tools; later calls skip it while the stamp
# file matches hack/codegen/go.mod, go.sum and the Go version.
#
#   CODEGEN_TOOLS_DIR  where controller-gen goes (default _output/tools); a
#                      relative path is taken from the repository root
#   CODEGEN_ROOT       the tree to generate into (default the repository
#                      root); hack/verify-codegen.sh points it at a copy
#   FORCE=1            rebuild controller-gen even if the stamp matches
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools_dir="${CODEGEN_TOOLS_DIR:-_output/tools}"
[[ "$tools_dir" == /* ]] || tools_dir="$root/$tools_dir"
gen_root="${CODEGEN_ROOT:-$root}"
controller_gen="$tools_dir/controller-gen"
stamp_file="$tools_dir/controller-gen.stamp"

# The stamp names everything the binary was built from, so it never vouches
# for a binary built from another go.sum or Go release.
stamp="$(cd "$root/hack/codegen" && go list -m -f '{{.Path}}@{{.Version}}' sigs.k8s.io/controller-tools)"
stamp+=" $(go env GOVERSION)"
stamp+=" codegen-go.mod=$(cat "$root/hack/codegen/go.mod" "$root/hack/codegen/go.sum" | sha256sum | cut -c1-16)"

if [[ "${FORCE:-}" == 1 || ! -x "$controller_gen" || ! -f "$stamp_file" || "$(cat "$stamp_file")" != "$stamp" ]]; then
	mkdir -p "$tools_dir"
	# Drop the stamp first: an interrupted build must not look complete.
	rm -f "$stamp_file"
	echo "building controller-gen into $tools_dir ($stamp)"
	start=$SECONDS
	(cd "$root/hack/codegen" &&
		CGO_ENABLED=0 go build -trimpath -o "$controller_gen.tmp" sigs.k8s.io/controller-tools/cmd/controller-gen)
	mv -f "$controller_gen.tmp" "$controller_gen"
	echo "$stamp" >"$stamp_file"
	echo "controller-gen built in $((SECONDS - start))s"
fi

cd "$gen_root"
# The CRD folder holds generated files only: start it empty so a renamed or
# removed kind leaves no stale manifest behind.
crd_dir=deploy/kubernetes/crds
mkdir -p "$crd_dir"
rm -f "$crd_dir"/*.yaml

"$controller_gen" \
	object \
	crd \
	paths=./pkg/apis/... \
	output:crd:artifacts:config="$crd_dir"

echo "generated deepcopy code in pkg/apis/ and CRDs in $crd_dir/ under $gen_root"
