package bench

import (
	"bufio"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Environment is where and with what the benchmark ran.
type Environment struct {
	CPUModel   string `json:"cpuModel"`
	Cores      int    `json:"cores"`
	MemoryMiB  int64  `json:"memoryMiB"`
	Kernel     string `json:"kernel"`
	GoBench    string `json:"goBench"`   // toolchain of this program
	GoSidecar  string `json:"goSidecar"` // toolchain csi-provisioner was built with
	Sidecar    string `json:"sidecar"`   // csi-provisioner --version
	ControlDir string `json:"controlPlaneDir"`
	// ControlPlane is the stamp `make e2e-tools` wrote: the Kubernetes
	// and etcd versions the binaries were built from.
	ControlPlane string `json:"controlPlane"`
	Commit       string `json:"commit"`
	Dirty        bool   `json:"dirty"`
}

// GatherEnvironment reads the machine from /proc and the versions from the
// binaries (of binDir and controlPlaneDir, empty for the framework's
// defaults) and the repository. What cannot be read is reported as unknown
// rather than failing the benchmark.
func GatherEnvironment(ctx context.Context, binDir, controlPlaneDir string) (Environment, error) {
	env := Environment{Cores: runtime.NumCPU(), GoBench: runtime.Version()}
	env.CPUModel, env.Cores = cpuInfo(env.Cores)
	env.MemoryMiB = memTotalMiB()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		env.Kernel = strings.TrimSpace(string(b))
	}
	if binDir == "" {
		var err error
		if binDir, err = framework.DefaultBinDir(); err != nil {
			return env, err
		}
	}
	sidecar := filepath.Join(binDir, "csi-provisioner")
	if info, err := buildinfo.ReadFile(sidecar); err == nil {
		env.GoSidecar = info.GoVersion
	}
	if out, err := exec.CommandContext(ctx, sidecar, "--version").CombinedOutput(); err == nil {
		env.Sidecar = strings.TrimSpace(string(out))
	}
	env.ControlDir = controlPlaneDir
	if env.ControlDir == "" {
		var err error
		if env.ControlDir, err = framework.DefaultControlPlaneDir(); err != nil {
			return env, err
		}
	}
	if b, err := os.ReadFile(filepath.Join(env.ControlDir, "VERSIONS")); err == nil {
		env.ControlPlane = strings.TrimSpace(string(b))
	}
	if root, err := framework.RepoRoot(); err == nil {
		if out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
			env.Commit = strings.TrimSpace(string(out))
		}
		if out, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
			env.Dirty = len(strings.TrimSpace(string(out))) > 0
		}
	}
	return env, nil
}

// cpuInfo returns the processor model and the number of logical cores in
// /proc/cpuinfo (fallback: the count Go sees).
func cpuInfo(fallback int) (model string, cores int) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown", fallback
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "processor":
			cores++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(value)
			}
		}
	}
	if cores == 0 {
		cores = fallback
	}
	if model == "" {
		model = "unknown"
	}
	return model, cores
}

// memTotalMiB is MemTotal of /proc/meminfo.
func memTotalMiB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

// KubernetesVersion picks "kubernetes=v1.x.y" out of the control plane
// stamp.
func (e Environment) KubernetesVersion() string {
	return stampField(e.ControlPlane, "kubernetes")
}

// EtcdVersion picks etcd's version out of the control plane stamp.
func (e Environment) EtcdVersion() string {
	return stampField(e.ControlPlane, "etcd")
}

func stampField(stamp, key string) string {
	for _, f := range strings.Fields(stamp) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return "unknown"
}

// Machine describes the cores, memory and kernel.
func (e Environment) Machine() string {
	return fmt.Sprintf("%d cores (%s), %.1f GiB memory, Linux %s", e.Cores, e.CPUModel, float64(e.MemoryMiB)/1024, e.Kernel)
}

// Built names the commit the binaries were built from, for the reports.
func (e Environment) Built() string {
	c := e.Commit
	if c == "" {
		c = "unknown"
	}
	if e.Dirty {
		c += " with uncommitted changes"
	}
	return c
}

// WriteProvenance writes the report lines of what ran where: the commit,
// the machine and the versions.
func (e Environment) WriteProvenance(b *strings.Builder) {
	fmt.Fprintf(b, "- Commit: %s; csi-provisioner `%s`\n", e.Built(), e.Sidecar)
	fmt.Fprintf(b, "- Machine: %s\n", e.Machine())
	fmt.Fprintf(b, "- Go: %s (benchmark), %s (csi-provisioner); Kubernetes %s (kube-apiserver, kube-controller-manager), etcd %s, built by `make e2e-tools`\n",
		e.GoBench, e.GoSidecar, e.KubernetesVersion(), e.EtcdVersion())
}
