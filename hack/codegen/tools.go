//go:build tools

// Package tools pins controller-gen, which hack/update-codegen.sh builds from
// this module. The blank import keeps `go mod tidy` from dropping it; the
// build tag keeps this file out of every ordinary build, since it is a main
// package.
package tools

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
