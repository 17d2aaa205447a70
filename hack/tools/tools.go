//go:build tools

// Package tools pins the control-plane programs that the e2e framework runs.
// The blank imports keep `go mod tidy` from dropping them; the build tag keeps
// this file out of every ordinary build, since these are main packages.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
