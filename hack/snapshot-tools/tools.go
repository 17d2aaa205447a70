//go:build tools

// Package tools pins the snapshot programs that the e2e framework runs next
// to the control plane: snapshot-controller and csi-snapshotter. The blank
// imports keep `go mod tidy` from dropping them; the build tag keeps this
// file out of every ordinary build, since these are main packages. The
// client module is imported too, so that go.mod pins the version whose
// config/crd/ hack/build-snapshot-stack.sh copies, rather than whatever the
// programs happen to require.
package tools

import (
	_ "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	_ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/csi-snapshotter"
	_ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller"
)
