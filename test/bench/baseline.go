package bench

import (
	"context"
	"debug/buildinfo"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// BaselineName names the baseline variant: an upstream external-provisioner
// release (built by hand, outside the repository) that every figure of ours
// is also reported against, as a ratio to its median.
const BaselineName = "baseline"

// UpstreamRBACManifest is upstream external-provisioner v5.1.0's own RBAC,
// kept as test data: the baseline's provisioning runs are under it, as the
// upstream release would be deployed.
const UpstreamRBACManifest = "test/e2e/testdata/rbac-upstream-v5.1.0.yaml"

// Baseline is the variant that runs the sidecar executable at path, an
// upstream release, with no flag of its own (upstream has no
// ProvisioningProtection gate) and, in the provisioning runs, under
// upstream's RBAC. Its Version is what `path --version` printed, with the
// Go version it was built with, when they could be read.
func Baseline(path string) Variant {
	return Variant{Name: BaselineName, Binary: path, RBACManifest: UpstreamRBACManifest, Version: binaryVersion(path)}
}

// binaryVersion runs `path --version` and reads the Go version from the
// binary. Upstream prints its own path and the version its Makefile stamps
// ("unknown" when built with a plain go build); the path is cut to its
// base name.
func binaryVersion(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var parts []string
	if out, err := exec.CommandContext(ctx, path, "--version").Output(); err == nil {
		v := strings.TrimSpace(string(out))
		if rest, ok := strings.CutPrefix(v, path); ok {
			v = filepath.Base(path) + rest
		}
		if v != "" {
			parts = append(parts, v)
		}
	}
	if info, err := buildinfo.ReadFile(path); err == nil {
		parts = append(parts, "built with "+info.GoVersion)
	}
	return strings.Join(parts, ", ")
}
