# csi-provisioner build, test and verify entry points. The scripts live in
# release-tools/ and hack/ so CI and developers run the same thing.
#
# `make help` lists the targets: every target has a "## name: text" line
# above it, which is what help prints, so keep that line up to date.

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.1.0-dev)
BIN_DIR ?= bin
FUZZTIME ?= 30s
FUZZ_RUN ?= .

.PHONY: all help build image test fuzz verify generate clean

## all: the default target: build
all: build

## help: this list of targets, from the Makefile's "## name: text" lines
help:
	@awk -v width="$${COLUMNS:-100}" ' \
		/^## [A-Za-z0-9_-]+:/ { \
			name = substr($$2, 1, length($$2) - 1); text = $$0; sub(/^## [^:]*: */, "", text); \
			line = sprintf("  %-10s", name); n = split(text, words, " "); \
			for (i = 1; i <= n; i++) { \
				if (length(line) + 1 + length(words[i]) > width && length(line) > 13) { print line; line = sprintf("%12s", "") } \
				line = line " " words[i]; \
			} \
			print line; \
		}' $(firstword $(MAKEFILE_LIST))

## build: the sidecar and the mock driver into $(BIN_DIR)/
build:
	VERSION=$(VERSION) BIN_DIR=$(BIN_DIR) release-tools/build.sh

# No container engine is needed: hack/image assembles the image with
# go-containerregistry. IMAGE names it (default csi-protect/csi-provisioner:$(VERSION)).
## image: the sidecar's OCI image for linux/amd64 and linux/arm64 in _output/image/csi-provisioner.tar (docker load, podman load, skopeo copy oci-archive:)
image:
	VERSION=$(VERSION) $(if $(IMAGE),IMAGE=$(IMAGE)) hack/build-image.sh

## test: unit tests (race detector on) and csi-sanity against the mock driver
test:
	release-tools/test.sh

# Not part of `make test`: each run explores new inputs for FUZZTIME per
# target (default 30s, e.g. FUZZTIME=5m), while `make test` replays the
# committed ones in testdata/fuzz/. FUZZ_RUN picks targets by name.
## fuzz: every Go fuzz target (StorageClass parameters, secret templates and claim tokens, volume name templates, topology, flags and feature gates, local-volume specs, device paths and tool output) for FUZZTIME each
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZ_RUN=$(FUZZ_RUN) hack/fuzz.sh

# shellcheck is not a Go program: hack/verify-shellcheck.sh uses it when it
# is on PATH (Debian: apt-get install shellcheck) and otherwise only checks
# the scripts' syntax with bash -n, saying the lint was skipped. logcheck is
# the tool of the hack/lint module, built by `go tool` into Go's cache.
## verify: gofmt, go vet, go.mod tidy and vendor/ in sync, log calls structured and contextual (logcheck, hack/logcheck.conf), shell scripts clean (shellcheck, when installed), generated code and CRDs up to date, every package of pkg/ and internal/ named in docs/architecture.md's diagram and table, and the links of README.md and docs/ resolving (README at most 450 lines)
verify:
	release-tools/verify.sh
	hack/verify-logcheck.sh
	hack/verify-shellcheck.sh
	hack/verify-codegen.sh
	hack/verify-architecture.sh
	hack/verify-docs-links.sh

# The generators are the tools of the hack/codegen module, built by `go tool`
# into Go's build cache (a minute or two the first time, then found there
# until hack/codegen/go.mod or the Go release changes).
## generate: deepcopy code for pkg/apis/..., the CRD manifests in deploy/kubernetes/crds/ (controller-gen), and the clientset, listers and informers in pkg/generated/ (client-gen, lister-gen, informer-gen)
generate:
	hack/update-codegen.sh

## clean: remove $(BIN_DIR)/ (_output/, with the control plane, stays)
clean:
	rm -rf $(BIN_DIR)

# --- local control plane for e2e tests and the demo (no containers) ---
CONTROL_PLANE_DIR ?= _output/control-plane

.PHONY: e2e-tools demo

## e2e-tools: build etcd, kube-apiserver, kube-controller-manager, snapshot-controller and csi-snapshotter into $(CONTROL_PLANE_DIR)/ with the snapshot CRDs (minutes the first time, then skipped)
e2e-tools:
	CONTROL_PLANE_DIR=$(CONTROL_PLANE_DIR) hack/build-control-plane.sh
	CONTROL_PLANE_DIR=$(CONTROL_PLANE_DIR) hack/build-snapshot-stack.sh

## demo: provision and delete a volume with the mock driver on a local control plane
demo: build e2e-tools
	go run -trimpath ./test/e2e/demo --bin-dir=$(BIN_DIR) --control-plane-dir=$(CONTROL_PLANE_DIR)

.PHONY: e2e local-up

# -p 1: the e2e package and the framework's own tests both start control
# planes on ports picked free; run side by side, one took a port the other
# had just picked.
## e2e: end-to-end tests of the sidecar and mock driver binaries on the local control plane (builds both first)
e2e: build e2e-tools
	BIN_DIR=$(BIN_DIR) CONTROL_PLANE_DIR=$(CONTROL_PLANE_DIR) go test -trimpath -tags e2e -count=1 -p 1 -timeout 30m ./test/e2e/...

# local-up is built and run rather than `go run`, which exits 1 after Ctrl-C
# even when the program stopped cleanly. Extra flags go in LOCAL_UP_ARGS, e.g.
# LOCAL_UP_ARGS="--driver-arg=--create-delay=5s".
## local-up: the e2e stack in the foreground for trying things by hand: prints the KUBECONFIG and kubectl examples; Ctrl-C tears it down
local-up: build e2e-tools
	go build -o _output/local-up ./test/e2e/localup
	_output/local-up --bin-dir=$(BIN_DIR) --control-plane-dir=$(CONTROL_PLANE_DIR) $(LOCAL_UP_ARGS)

# --- benchmark on the same local control plane ---
BENCH_DIR ?= _output/bench

.PHONY: bench soak

# BENCH_QUICK=1 is read by the program itself; extra flags go in BENCH_ARGS,
# e.g. BENCH_ARGS="--runs=5 --keep-work-dirs" or BENCH_ARGS="--suites=memory".
# BASELINE=/path/to/csi-provisioner (an upstream release built outside the
# repository) runs that binary as one more configuration of the provisioning
# and memory benchmarks and reports every figure as a ratio to it.
# BENCH_PUBLISH=docs/bench also copies a finished full run's report there as
# results.md, with the part reports and plots it links to, replacing the
# previous publication's: the figures the documentation links to.
# test/bench is a Go module of its own (so gonum/plot stays out of the
# sidecar's go.mod and vendor/), hence the cd. BIN_DIR and CONTROL_PLANE_DIR
# are passed as absolute paths; the program takes a relative --out-dir (and
# --bin-dir, --control-plane-dir) from the repository root, not from test/bench.
## bench: the performance report in $(BENCH_DIR)/report.md with PNG plots: provisioning throughput, latency and API requests per volume (100, 1,000 and 5,000 claims, gate on and off, tuned and default client limits), the sidecar's memory with 10,000 to 50,000 claims and PVs cached, PVC protection against kube-controller-manager's, a backend that rate-limits its API, capacity tracking on 2,000 nodes whose capacity moves, and Go benchmarks of the hot paths (about an hour on 2 cores; BENCH_QUICK=1: smaller sizes, 1 run, about 12 minutes; BASELINE=path: also that upstream binary, every figure as a ratio to it, about an hour and a half; BENCH_PUBLISH=docs/bench: the report also as docs/bench/results.md, with its plots)
bench: build e2e-tools
	cd test/bench && BIN_DIR=$(abspath $(BIN_DIR)) CONTROL_PLANE_DIR=$(abspath $(CONTROL_PLANE_DIR)) go run ./cmd/provisioning-bench --out-dir=$(BENCH_DIR) $(if $(BASELINE),--baseline=$(abspath $(BASELINE))) $(if $(BENCH_PUBLISH),--publish=$(BENCH_PUBLISH)) $(BENCH_ARGS)

# --- soak: long churn under faults; not part of CI ---
SOAK_DIR ?= _output/soak
SOAK_DURATION ?= 30m

# Extra flags go in SOAK_ARGS, e.g. SOAK_ARGS="--seed=42 --fault-interval=60s".
## soak: SOAK_DURATION (default 30m) of claim churn (creates, clones, deletes at random moments) against two leader-electing sidecars while sidecar, kube-apiserver and driver SIGKILLs, leader cut-offs and etcd compactions hit on a seeded schedule; report in $(SOAK_DIR)/report.md with plots; fails on any leak, stuck claim or volume made twice
soak: build e2e-tools
	cd test/bench && go run ./cmd/soak --out-dir=$(abspath $(SOAK_DIR)) --bin-dir=$(abspath $(BIN_DIR)) --control-plane-dir=$(abspath $(CONTROL_PLANE_DIR)) --duration=$(SOAK_DURATION) $(SOAK_ARGS)
