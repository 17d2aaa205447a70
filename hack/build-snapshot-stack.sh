#!/usr/bin/env bash
# Builds the snapshot stack for the e2e tests (snapshot-controller and
# csi-snapshotter, the tool directives of the hack/snapshot-tools module)
# from source, next to the control plane, and copies the VolumeSnapshot CRDs
# it serves beside them, with the ReferenceGrant CRD of the Gateway API
# version the sidecar's go.mod pins (cross-namespace data sources). There is
# no Docker here, so the e2e framework runs these binaries directly, as it
# does the control plane.
#
# They are built with `go build` rather than run with `go tool`, since both
# need their version stamped in with -ldflags. Go's build cache keeps the
# compiled packages but not the linked binaries, so the stamp file
# (SNAPSHOT-VERSIONS) saves relinking them: the first build takes a few
# minutes, later calls return at once while the stamp matches
# hack/snapshot-tools/go.mod and go.sum.
#
#   CONTROL_PLANE_DIR  where the binaries go (default _output/control-plane);
#                      a relative path is taken from the repository root
#   FORCE=1            rebuild even if the stamp matches
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/hack/snapshot-tools"
out="${CONTROL_PLANE_DIR:-_output/control-plane}"
# The build runs inside hack/snapshot-tools, so anchor a relative path first.
[[ "$out" == /* ]] || out="$root/$out"
crd_out="$out/snapshot-crds"
# Its own stamp: the control plane's VERSIONS belongs to build-control-plane.sh.
stamp_file="$out/SNAPSHOT-VERSIONS"
bins=(snapshot-controller csi-snapshotter)
gateway_crd_out="$out/gateway-crds"
gateway_crd=gateway.networking.k8s.io_referencegrants.yaml
crds=(
	snapshot.storage.k8s.io_volumesnapshotclasses.yaml
	snapshot.storage.k8s.io_volumesnapshotcontents.yaml
	snapshot.storage.k8s.io_volumesnapshots.yaml
)

cd "$tools"
snapshotter_module=github.com/kubernetes-csi/external-snapshotter/v8
client_module=github.com/kubernetes-csi/external-snapshotter/client/v8
snapshotter_version="$(go list -m -f '{{.Version}}' "$snapshotter_module")"
client_version="$(go list -m -f '{{.Version}}' "$client_module")"
# The go.mod digest catches a changed require that keeps the two headline
# versions, so the stamp never vouches for binaries it did not see.
gomod_digest="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
gateway_module=sigs.k8s.io/gateway-api
gateway_version="$(cd "$root" && go list -m -f '{{.Version}}' "$gateway_module")"
stamp="external-snapshotter=$snapshotter_version client=$client_version snapshot-tools-go.mod=$gomod_digest gateway-api=$gateway_version"

up_to_date() {
	[[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]] || return 1
	local f
	for f in "${bins[@]}"; do
		[[ -x "$out/$f" ]] || return 1
	done
	for f in "${crds[@]}"; do
		[[ -f "$crd_out/$f" ]] || return 1
	done
	[[ -f "$gateway_crd_out/$gateway_crd" ]] || return 1
}

if [[ "${FORCE:-}" != 1 ]] && up_to_date; then
	echo "snapshot stack up to date in $out ($stamp)"
	exit 0
fi

mkdir -p "$out" "$crd_out" "$gateway_crd_out"
# Drop the stamp first: an interrupted build must not look complete.
rm -f "$stamp_file"

# Both programs print main.version at start-up and with --version; without
# it their logs say "unknown".
ldflags="-s -w -X main.version=$snapshotter_version"

build() { # build NAME PACKAGE
	echo "building $1 from $2"
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out/$1.tmp" "$2"
	mv -f "$out/$1.tmp" "$out/$1"
}

start=$SECONDS
build snapshot-controller "$snapshotter_module/cmd/snapshot-controller"
build csi-snapshotter "$snapshotter_module/cmd/csi-snapshotter"

# The CRDs come from the client module, the API the programs are built
# against; the module cache is read-only, hence the mode on the copies.
# `go list -m` names the folder only once the module is downloaded.
go mod download "$client_module"
client_dir="$(go list -m -f '{{.Dir}}' "$client_module")"
for f in "${crds[@]}"; do
	install -m 0644 "$client_dir/config/crd/$f" "$crd_out/$f.tmp"
	mv -f "$crd_out/$f.tmp" "$crd_out/$f"
done

# The sidecar vendors the Gateway API's Go types only, not its CRDs: take
# the manifest from the module cache (downloading the module if need be).
gateway_dir="$(go mod download -json "$gateway_module@$gateway_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
install -m 0644 "$gateway_dir/config/crd/standard/$gateway_crd" "$gateway_crd_out/$gateway_crd.tmp"
mv -f "$gateway_crd_out/$gateway_crd.tmp" "$gateway_crd_out/$gateway_crd"

echo "$stamp" >"$stamp_file"
echo "snapshot stack built in $out in $((SECONDS - start))s ($stamp)"
