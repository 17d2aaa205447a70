//go:build tools

// Package tools pins the generators that hack/update-codegen.sh builds from
// this module: controller-gen (deepcopy and CRDs) and code-generator's
// client-gen, lister-gen and informer-gen (typed clientset, listers and
// informers). The blank imports keep `go mod tidy` from dropping them; the
// build tag keeps this file out of every ordinary build, since they are main
// packages.
package tools

import (
	_ "k8s.io/code-generator/cmd/client-gen"
	_ "k8s.io/code-generator/cmd/informer-gen"
	_ "k8s.io/code-generator/cmd/lister-gen"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
