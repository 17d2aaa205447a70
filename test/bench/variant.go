package bench

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Variant is one sidecar configuration under test.
type Variant struct {
	// Name labels the variant in the report, e.g. "gate on".
	Name string `json:"name"`
	// Args are appended to the benchmark's sidecar flags.
	Args []string `json:"args"`
	// Env is added to the sidecar's environment.
	Env []string `json:"env,omitempty"`
	// Binary is the sidecar executable; empty means csi-provisioner of the
	// benchmark's bin folder, this repository's. The baseline sets it.
	Binary string `json:"binary,omitempty"`
	// RBACManifest replaces the shipped RBAC of the provisioning runs,
	// each on a fresh stack (framework.SidecarOptions.RBACManifest,
	// relative to the repository root); empty means the shipped one. The
	// memory benchmark runs every variant on one stack whose RBAC is
	// installed once, and ignores it.
	RBACManifest string `json:"rbacManifest,omitempty"`
	// Version is Binary's --version output, for the report.
	Version string `json:"version,omitempty"`
}

// The two variants the benchmark exists for. The gate is set explicitly in
// both so that the report shows the exact flag each ran with.
var (
	GateOn  = Variant{Name: "gate on", Args: []string{"--feature-gates=ProvisioningProtection=true"}}
	GateOff = Variant{Name: "gate off", Args: []string{"--feature-gates=ProvisioningProtection=false"}}
)

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

// Describe is how a report's setup names the variant's sidecar: its flags,
// or for the baseline its binary, version and RBAC.
func (v Variant) Describe() string {
	if !v.IsBaseline() {
		return fmt.Sprintf("%s `%s`", v.Name, strings.Join(v.Args, " "))
	}
	d := v.Name + ": " + v.Upstream()
	if len(v.Args) > 0 {
		d += fmt.Sprintf(" `%s`", strings.Join(v.Args, " "))
	}
	return d
}

// Upstream names the baseline's binary and its version.
func (v Variant) Upstream() string {
	d := fmt.Sprintf("upstream `%s`", v.Binary)
	if v.Version != "" {
		d += fmt.Sprintf(" (`--version`: %s)", v.Version)
	}
	return d
}
