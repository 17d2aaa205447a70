//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The keys of a kept PV's protection, spelled out as users see them.
const (
	annReclaimPolicy = "provisioner.storage.kubernetes.io/reclaim-policy"
	finalizerKept    = "provisioner.storage.kubernetes.io/recycle-bin"
	libraryFinalizer = "external-provisioner.volume.kubernetes.io/finalizer"
)

// upstreamBinaryEnv names an upstream external-provisioner binary, built
// outside the repository, that the swap-back tests run instead of the
// stand-in: E2E_UPSTREAM_BINARY=/path/to/csi-provisioner make e2e.
const upstreamBinaryEnv = "E2E_UPSTREAM_BINARY"

// upstreamLikeBinary is the provisioner that knows nothing of this project:
// $E2E_UPSTREAM_BINARY if set, else the stand-in (./upstreamlike), the
// provisioning library with a provisioner that only calls CreateVolume and
// DeleteVolume, built here (Go's build cache makes every build after the
// first a matter of seconds).
func upstreamLikeBinary(t *testing.T) string {
	t.Helper()
	if path := os.Getenv(upstreamBinaryEnv); path != "" {
		t.Logf("Running %s in the sidecar's place", path)
		return path
	}
	path := filepath.Join(t.TempDir(), "upstreamlike")
	if out, err := exec.Command("go", "build", "-trimpath", "-o", path, "./upstreamlike").CombinedOutput(); err != nil {
		t.Fatalf("build the stand-in provisioner: %v\n%s", err, out)
	}
	return path
}

// keptSafely reports whether a kept PV is safe from a deleter that does not
// know the bin: it says Retain, with Delete recorded, and carries the bin's
// finalizer.
func keptSafely(pv *corev1.PersistentVolume) bool {
	has := false
	for _, f := range pv.Finalizers {
		has = has || f == finalizerKept
	}
	return has && pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRetain &&
		pv.Annotations[annReclaimPolicy] == string(corev1.PersistentVolumeReclaimDelete)
}
