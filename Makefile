# csi-provisioner build, test and verify entry points. The scripts live in
# release-tools/ so CI and developers run the same thing.

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.1.0-dev)
BIN_DIR ?= bin

.PHONY: all build test verify clean

all: build

## build: the sidecar and the mock driver into $(BIN_DIR)/
build:
	VERSION=$(VERSION) BIN_DIR=$(BIN_DIR) release-tools/build.sh

## test: unit tests (race detector on) and csi-sanity against the mock driver
test:
	release-tools/test.sh

## verify: gofmt, go vet and vendor/ in sync with go.mod
verify:
	release-tools/verify.sh

clean:
	rm -rf $(BIN_DIR)
