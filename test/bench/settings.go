package bench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Settings are what every part of the benchmark runs with; each part's
// Options embed them. DefaultSettings fills them but for PhaseTimeout,
// which is each part's own.
type Settings struct {
	// BinDir holds csi-provisioner and mock-csi-driver; empty means the
	// framework's default (bin/).
	BinDir string
	// ControlPlaneDir holds etcd, kube-apiserver and
	// kube-controller-manager; empty means the framework's default.
	ControlPlaneDir string
	// Quick marks the short mode in the reports.
	Quick bool
	// Runs is the number of runs of each configuration compared; each
	// part says what a run is. Runs of the configurations interleave
	// (A, B, A, B, ...) so that drift of the machine hits all alike.
	Runs int
	// SidecarArgs are given to the sidecar in every configuration, after
	// the framework's own flags (socket, kubeconfig, --timeout, -v).
	SidecarArgs []string
	// SidecarVerbosity is the sidecar's -v.
	SidecarVerbosity int
	// KCMArgs are appended to kube-controller-manager's flags.
	KCMArgs []string
	// Creator is the benchmark's own client, which creates and deletes
	// the claims.
	Creator CreatorOptions
	// PhaseTimeout bounds each phase of a run. A phase that runs out is
	// reported with what was left, not as a crash.
	PhaseTimeout time.Duration
	// WorkRoot is where each stack's work folder is made (logs, socket,
	// cluster data); empty means the system's temporary folder, since the
	// driver's unix socket path must stay short.
	WorkRoot string
	// KeepWorkDirs keeps every work folder; the folder of a run that went
	// wrong is always kept.
	KeepWorkDirs bool
	// Progress receives one line per step; nil discards them.
	Progress io.Writer
}

// DefaultSettings are the settings of the full benchmark: 3 runs, the
// sidecar at the client limits recommended for large clusters and at the
// shipped Deployment's -v=2 (the framework's default of 4 dumps objects and
// would make logging a large part of what is measured), and
// kube-controller-manager's client limit raised, since its default (20
// QPS, 30 burst) would make the PV binder the bottleneck long before the
// sidecar: binding one claim takes it several writes.
func DefaultSettings() Settings {
	return Settings{
		Runs:             3,
		SidecarArgs:      []string{"--kube-api-qps=200", "--kube-api-burst=400", "--worker-threads=100"},
		SidecarVerbosity: 2,
		KCMArgs:          []string{"--kube-api-qps=1000", "--kube-api-burst=2000"},
		Creator:          CreatorOptions{Workers: 32, QPS: 5000, Burst: 5000},
	}
}

// CreatorOptions configures the benchmark's own client. It must never be
// what limits the run, so its rate limit is far above what the sidecar may
// use and several calls are in flight at once.
type CreatorOptions struct {
	// Workers is the number of concurrent create (and delete) calls.
	Workers int
	// QPS and Burst are the client's rate limit.
	QPS   float32
	Burst int
}

// Progressf writes one line of progress.
func (s Settings) Progressf(format string, args ...any) {
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, format+"\n", args...)
	}
}

// NewWorkDir makes a work folder under WorkRoot.
func (s Settings) NewWorkDir() (string, error) { return os.MkdirTemp(s.WorkRoot, "csi-bench-") }

// DoneWithWorkDir removes a work folder, or keeps it (with KeepWorkDirs, or
// when wentWrong, for its logs) and says where.
func (s Settings) DoneWithWorkDir(dir string, wentWrong bool) {
	if s.KeepWorkDirs || wentWrong {
		s.Progressf("  work folder kept: %s", dir)
		return
	}
	_ = os.RemoveAll(dir)
}

// OverrideArgs returns args with every flag of extra replacing the one of
// the same name (the part before "="), and the others appended.
func OverrideArgs(args, extra []string) []string {
	out := append([]string(nil), args...)
	for _, e := range extra {
		name, _, _ := strings.Cut(e, "=")
		replaced := false
		for i, a := range out {
			if n, _, _ := strings.Cut(a, "="); n == name {
				out[i] = e
				replaced = true
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return out
}
