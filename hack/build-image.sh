#!/usr/bin/env bash
# Builds the csi-provisioner OCI image without a container engine: static
# binaries for linux/amd64 and linux/arm64 (as release-tools/build.sh builds
# them), then one image per platform on an empty base, packed as an OCI
# archive by the hack/image module (go-containerregistry). Symbol tables and
# DWARF are stripped (-s -w): panics still print function names and lines.
#
#   VERSION    version stamped into the binary and the labels
#   IMAGE      reference recorded in the archive (default csi-protect/csi-provisioner:$VERSION)
#   IMAGE_DIR  where the archive goes (default _output/image)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
: "${VERSION:=$(git describe --tags --always --dirty 2>/dev/null || echo v0.1.0-dev)}"
: "${IMAGE:=csi-protect/csi-provisioner:${VERSION}}"
: "${IMAGE_DIR:=_output/image}"
[[ "$IMAGE_DIR" == /* ]] || IMAGE_DIR="$root/$IMAGE_DIR"
revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
created="$(git show -s --format=%cI HEAD 2>/dev/null || echo 1970-01-01T00:00:00Z)"

binaries=()
for arch in amd64 arm64; do
	out="$IMAGE_DIR/bin/$arch/csi-provisioner"
	mkdir -p "$(dirname "$out")"
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -mod=vendor -trimpath \
		-ldflags "-s -w -X main.version=${VERSION}" -o "$out" ./cmd/csi-provisioner
	binaries+=("linux/$arch=$out")
done
(IFS=,; cd hack/image && go run . --binaries="${binaries[*]}" --image="$IMAGE" \
	--version="$VERSION" --revision="$revision" --created="$created" \
	--out="$IMAGE_DIR/csi-provisioner.tar")
