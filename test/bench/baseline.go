package bench

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"math"
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

// IsBaseline tells the baseline from this repository's variants.
func (v Variant) IsBaseline() bool { return v.Name == BaselineName }

// Label names the variant in plot legends: the baseline with its binary's
// name, so that the plot says what ran.
func (v Variant) Label() string {
	if v.IsBaseline() && v.Binary != "" {
		return fmt.Sprintf("%s (upstream %s)", v.Name, filepath.Base(v.Binary))
	}
	return v.Name
}

// describe is how a report's setup names the variant's sidecar: its flags,
// or for the baseline its binary, version and RBAC.
func (v Variant) describe() string {
	if !v.IsBaseline() {
		return fmt.Sprintf("%s `%s`", v.Name, strings.Join(v.Args, " "))
	}
	d := v.Name + ": " + v.upstream()
	if len(v.Args) > 0 {
		d += fmt.Sprintf(" `%s`", strings.Join(v.Args, " "))
	}
	return d
}

// upstream names the baseline's binary and its version.
func (v Variant) upstream() string {
	d := fmt.Sprintf("upstream `%s`", v.Binary)
	if v.Version != "" {
		d += fmt.Sprintf(" (`--version`: %s)", v.Version)
	}
	return d
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

// ratioValue is a ratio for results.json: nil when either figure is
// missing, since JSON has no NaN.
func ratioValue(q float64) *float64 {
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return nil
	}
	return &q
}

// fmtRatio writes a ratio to the baseline, "–" when it cannot be computed.
func fmtRatio(q float64) string {
	if math.IsNaN(q) || math.IsInf(q, 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", q)
}
