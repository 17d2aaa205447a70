#!/usr/bin/env bash
# Builds csi-provisioner and mock-csi-driver from vendor/, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VERSION:=v0.1.0-dev}"
: "${BIN_DIR:=bin}"
mkdir -p "$BIN_DIR"
for cmd in csi-provisioner mock-csi-driver local-volume-agent; do
	CGO_ENABLED=0 go build -mod=vendor -trimpath \
		-ldflags "-X main.version=${VERSION}" \
		-o "$BIN_DIR/$cmd" "./cmd/$cmd"
	echo "built $BIN_DIR/$cmd ($VERSION)"
done
