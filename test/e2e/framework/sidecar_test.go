package framework

import (
	"path/filepath"
	"testing"
)

// These tests need no control plane.

func TestSidecarBinaryDefaultsToBinDir(t *testing.T) {
	for _, tc := range []struct {
		binary, binDir, want string
	}{
		{"", "/repo/bin", filepath.Join("/repo/bin", "csi-provisioner")},
		{"/opt/upstream/csi-provisioner-v5.1.0", "/repo/bin", "/opt/upstream/csi-provisioner-v5.1.0"},
		{"upstream/csi-provisioner", "/repo/bin", "upstream/csi-provisioner"},
	} {
		opts := SidecarOptions{Binary: tc.binary}.withDefaults()
		if got := opts.binary(tc.binDir); got != tc.want {
			t.Errorf("Binary %q, BinDir %q: sidecar executable %q, want %q", tc.binary, tc.binDir, got, tc.want)
		}
	}
}
