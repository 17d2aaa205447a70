#!/usr/bin/env bash
# Builds the local test control plane (etcd, kube-apiserver,
# kube-controller-manager) from source, into a git-ignored folder: the tool
# directives of the hack/tools module name the three programs and its
# require lines pin their versions. There is no Docker here, so no kind: the
# e2e framework runs these binaries directly on loopback.
#
# They are built with `go build` rather than run with `go tool`, since
# kube-apiserver needs its version stamped in with -ldflags. Go's build cache
# keeps the compiled packages but not the linked binaries, so the stamp file
# (VERSIONS) saves relinking them: the first build takes several minutes,
# later calls return at once while the stamp matches hack/tools/go.mod and
# go.sum.
#
#   CONTROL_PLANE_DIR  where the binaries go (default _output/control-plane);
#                      a relative path is taken from the repository root
#   FORCE=1            rebuild even if the stamp matches
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/hack/tools"
out="${CONTROL_PLANE_DIR:-_output/control-plane}"
# The build runs inside hack/tools, so anchor a relative path first.
[[ "$out" == /* ]] || out="$root/$out"
stamp_file="$out/VERSIONS"
bins=(etcd kube-apiserver kube-controller-manager)

cd "$tools"
k8s_version="$(go list -m -f '{{.Version}}' k8s.io/kubernetes)"
etcd_version="$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)"
# The go.mod digest catches a changed replace or require that keeps the two
# headline versions, so the stamp never vouches for binaries it did not see.
gomod_digest="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
stamp="kubernetes=$k8s_version etcd=$etcd_version tools-go.mod=$gomod_digest"

up_to_date() {
	[[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]] || return 1
	local b
	for b in "${bins[@]}"; do
		[[ -x "$out/$b" ]] || return 1
	done
}

if [[ "${FORCE:-}" != 1 ]] && up_to_date; then
	echo "control plane up to date in $out ($stamp)"
	exit 0
fi

mkdir -p "$out"
# Drop the stamp first: an interrupted build must not look complete.
rm -f "$stamp_file"

# kube-apiserver reports this version in /version; without it clients see
# v0.0.0-master, which makes logs harder to read.
minor="${k8s_version#v1.}"
minor="${minor%%.*}"
ldflags="-s -w"
ldflags+=" -X k8s.io/component-base/version.gitVersion=$k8s_version"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor"
ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"

build() { # build NAME PACKAGE
	echo "building $1 from $2"
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out/$1.tmp" "$2"
	mv -f "$out/$1.tmp" "$out/$1"
}

start=$SECONDS
build etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
echo "$stamp" >"$stamp_file"
echo "control plane built in $out in $((SECONDS - start))s ($stamp)"
