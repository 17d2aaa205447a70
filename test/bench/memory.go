package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// MemoryOptions configures the memory benchmark: one control plane filled
// with bound claims and PVs of the driver, then one fresh sidecar per run,
// whose peak RSS and CPU time are read from /proc once it has synced its
// caches, gone idle and provisioned and deleted a batch of claims.
type MemoryOptions struct {
	BinDir, ControlPlaneDir string
	Quick                   bool
	// Objects is the number of bound claims in the cluster, and of their
	// PVs: every one of them is in the sidecar's caches.
	Objects int
	// Batch is the number of claims each run provisions and deletes once
	// the sidecar is idle, so the figures include the sidecar at work
	// with full caches.
	Batch int
	// Runs is the number of runs per variant; each run is a new sidecar
	// process on the same stack, so its RSS starts from nothing.
	Runs int
	// Variants are compared, runs interleaved (A, B, C, A, B, C, ...).
	// A variant's Binary is run; its RBACManifest is not installed: every
	// variant runs under the shipped RBAC, installed once for the stack
	// (for the baseline, a superset of upstream's).
	Variants []Variant
	// SidecarArgs are given to the sidecar in every variant; the
	// benchmark adds --http-endpoint to read its Go heap figures and
	// work queues.
	SidecarArgs      []string
	SidecarVerbosity int
	KCMArgs          []string
	Creator          CreatorOptions
	// SyncTimeout bounds the wait for a sidecar to sync its caches and go
	// idle, and the settling of the cluster after the pairs are created.
	SyncTimeout time.Duration
	// PhaseTimeout bounds the batch's provisioning and its deletion.
	PhaseTimeout time.Duration
	// HeapProfileDir, if set, receives each run's Go heap profile at its
	// end (heap-<order>.pb.gz, from --enable-pprof), to find where the
	// bytes go: `go tool pprof -sample_index=inuse_space -top <file>`.
	HeapProfileDir string
	// GoalMiB is the peak RSS every run of ours should stay under.
	GoalMiB float64
	// Shipped names the variant that runs with the settings the project
	// ships (deploy/kubernetes), the one whose peak RSS the goal against
	// the baseline judges. Point it at another variant when the shipped
	// settings change.
	Shipped string
	// WorkRoot and KeepWorkDir are as in Options; the single work folder
	// is kept when a run had problems.
	WorkRoot    string
	KeepWorkDir bool
	Progress    io.Writer
}

// AllProtectionGatesOn is the sidecar with every protection controller it
// has: the variant with the most informers (pods for PVC protection) and
// handlers.
var AllProtectionGatesOn = Variant{
	Name: "all protection gates on",
	Args: []string{"--feature-gates=ProvisioningProtection=true,PVProtection=true,PVCProtection=true"},
}

// MemoryLimited is AllProtectionGatesOn with a soft memory limit for the Go
// runtime, the tuning the README suggests for large clusters: the
// collector works harder instead of letting the heap double its live size.
var MemoryLimited = Variant{
	Name: "all gates on, GOMEMLIMIT=100MiB",
	Args: AllProtectionGatesOn.Args,
	Env:  []string{"GOMEMLIMIT=100MiB"},
}

// DefaultMemoryOptions is the full benchmark: 10,000 bound pairs, a batch
// of 100 claims, 3 runs of each variant.
func DefaultMemoryOptions() MemoryOptions {
	o := DefaultOptions()
	return MemoryOptions{
		Objects:          10000,
		Batch:            100,
		Runs:             3,
		Variants:         []Variant{GateOn, GateOff, AllProtectionGatesOn, MemoryLimited},
		SidecarArgs:      slices.Clone(o.SidecarArgs),
		SidecarVerbosity: o.SidecarVerbosity,
		KCMArgs:          slices.Clone(o.KCMArgs),
		Creator:          o.Creator,
		SyncTimeout:      2 * time.Minute,
		PhaseTimeout:     time.Minute,
		GoalMiB:          150,
		Shipped:          GateOn.Name,
	}
}

// QuickMemoryOptions is the short mode: 2,000 pairs, one run per variant.
func QuickMemoryOptions() MemoryOptions {
	o := DefaultMemoryOptions()
	o.Quick = true
	o.Objects = 2000
	o.Runs = 1
	return o
}

// MemoryReport is the whole memory benchmark.
type MemoryReport struct {
	Options     MemoryOptions `json:"-"`
	Environment Environment   `json:"environment"`
	Invocation  Invocation    `json:"invocation"`
	Started     time.Time     `json:"started"`
	Duration    time.Duration `json:"duration"`
	Variants    []Variant     `json:"variants"`
	// SidecarArgs are the flags every variant ran with, besides the
	// framework's own and the variant's.
	SidecarArgs []string     `json:"sidecarArgs"`
	Setup       MemorySetup  `json:"setup"`
	Runs        []*MemoryRun `json:"runs"`
	GoalMiB     float64      `json:"goalMiB"`
	// Shipped is the variant with the shipped settings (Options.Shipped).
	Shipped     string        `json:"shipped"`
	Batch       int           `json:"batch"`
	SyncTimeout time.Duration `json:"syncTimeout"`
}

// MemorySetup is how the cluster was filled before any sidecar ran.
type MemorySetup struct {
	// Objects is the number of claims, and of PVs, created.
	Objects    int           `json:"objects"`
	StackStart time.Duration `json:"stackStart"`
	// Create is the benchmark's writes of every pair, with
	// kube-controller-manager stopped.
	Create time.Duration `json:"create"`
	// Settle is from restarting kube-controller-manager until its PV
	// binder had gone through every pair and was idle.
	Settle time.Duration `json:"settle"`
	// ClaimsBound and VolumesBound are counted after settling.
	ClaimsBound  int `json:"claimsBound"`
	VolumesBound int `json:"volumesBound"`
	// Rewritten counts the claims and PVs written while settling: none,
	// unless the binder found something to change.
	Rewritten int `json:"rewritten"`
	// OtherCores is what processes outside the stack used while the
	// pairs were created, in cores: another build or test on the machine
	// slows the setup down.
	OtherCores float64  `json:"otherCores"`
	Problems   []string `json:"problems,omitempty"`
}

// MemoryRun is one sidecar process's figures. Sizes are bytes; times are
// from the sidecar's start.
type MemoryRun struct {
	Variant string `json:"variant"`
	Run     int    `json:"run"`
	Order   int    `json:"order"`
	// SyncTime is until the sidecar logged that its caches were synced;
	// SyncCPU its CPU time (user and system) by then.
	SyncTime time.Duration `json:"syncTime"`
	SyncCPU  time.Duration `json:"syncCPU"`
	// IdleTime is until its work queues were empty and it used (almost)
	// no CPU; Idle is its memory then, before the batch.
	IdleTime time.Duration `json:"idleTime"`
	IdleCPU  time.Duration `json:"idleCPU"`
	Idle     procMemory    `json:"idle"`
	// BatchProvision is from the first create call until every batch
	// claim was Bound; BatchDelete from the first delete call until the
	// claims, their PVs and the driver's volumes were gone.
	BatchProvision time.Duration `json:"batchProvision"`
	BatchDelete    time.Duration `json:"batchDelete"`
	BatchBound     int           `json:"batchBound"`
	ClaimsLeft     int           `json:"claimsLeft"`
	PVsLeft        int           `json:"pvsLeft"`
	VolumesLeft    int           `json:"volumesLeft"`
	// End is the memory after the batch: End.PeakRSS (VmHWM) is the
	// run's peak RSS. CPU is the CPU time the process used in all.
	End  procMemory    `json:"end"`
	CPU  time.Duration `json:"cpu"`
	Wall time.Duration `json:"wall"`
	// Heap is the Go runtime's view at the end, from the sidecar's
	// metrics; zero when they could not be read.
	Heap goMemory `json:"heap"`
	// OtherCores is what processes outside the stack used during the
	// run, in cores. It does not change the memory figures, but slows
	// the sidecar's sync down.
	OtherCores float64  `json:"otherCores"`
	Problems   []string `json:"problems,omitempty"`
}

// RunMemory sets up one stack with Options.Objects bound claims and PVs and
// runs every variant Options.Runs times on it, interleaved.
func RunMemory(ctx context.Context, opts MemoryOptions, how Invocation) (_ *MemoryReport, err error) {
	if opts.Objects <= 0 || opts.Batch <= 0 || opts.Runs <= 0 || len(opts.Variants) == 0 {
		return nil, errors.New("options need Objects, Batch, Runs and Variants")
	}
	rep := &MemoryReport{
		Options: opts, Invocation: how, Started: time.Now(),
		Variants: opts.Variants, SidecarArgs: opts.SidecarArgs,
		GoalMiB: opts.GoalMiB, Shipped: opts.Shipped, Batch: opts.Batch, SyncTimeout: opts.SyncTimeout,
	}
	if rep.Environment, err = gatherEnvironment(ctx, Options{BinDir: opts.BinDir, ControlPlaneDir: opts.ControlPlaneDir}); err != nil {
		return nil, err
	}
	m := &memoryBench{opts: opts, rep: rep}
	if m.workDir, err = os.MkdirTemp(opts.WorkRoot, "csi-bench-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil || rep.HasProblems() || opts.KeepWorkDir {
			m.progress("  work folder kept: %s", m.workDir)
		} else {
			_ = os.RemoveAll(m.workDir)
		}
	}()
	if err := m.setUp(ctx); err != nil {
		if m.stack != nil {
			_ = m.stack.Stop()
		}
		return nil, err
	}
	order := 0
	for run := 1; run <= opts.Runs; run++ {
		for _, v := range opts.Variants {
			order++
			m.progress("[%s] run %d/%d: %s, run %d of %d", m.elapsed(), order, opts.Runs*len(opts.Variants), v.Name, run, opts.Runs)
			res := m.runSidecar(ctx, v, run, order)
			rep.Runs = append(rep.Runs, res)
			m.progress("  peak RSS %.1f MiB, RSS at end %.1f MiB, CPU %.2f s (%.2f s to sync in %.2f s), run took %s",
				mib(res.End.PeakRSS), mib(res.End.RSS), res.CPU.Seconds(), res.SyncCPU.Seconds(), res.SyncTime.Seconds(), res.Wall.Round(100*time.Millisecond))
			if ctx.Err() != nil {
				break
			}
		}
	}
	if err := m.stack.Stop(); err != nil {
		rep.Setup.Problems = append(rep.Setup.Problems, fmt.Sprintf("stack did not stop cleanly: %v", err))
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

// memoryBench is the state RunMemory shares between its steps.
type memoryBench struct {
	opts    MemoryOptions
	rep     *MemoryReport
	workDir string
	stack   *framework.Stack
	client  kubernetes.Interface
}

func (m *memoryBench) progress(format string, args ...any) {
	if m.opts.Progress != nil {
		fmt.Fprintf(m.opts.Progress, format+"\n", args...)
	}
}

func (m *memoryBench) elapsed() time.Duration {
	return time.Since(m.rep.Started).Round(time.Second)
}

// setUp starts the stack without a sidecar and fills it. No audit log: no
// request is counted here, and a blocking audit log would only slow the
// creation of the pairs.
func (m *memoryBench) setUp(ctx context.Context) error {
	o := m.opts
	m.progress("[%s] memory: starting the stack", m.elapsed())
	start := time.Now()
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:  o.BinDir,
		WorkDir: m.workDir,
		Cluster: framework.ClusterOptions{BinDir: o.ControlPlaneDir, KCMArgs: o.KCMArgs},
		Sidecar: framework.SidecarOptions{
			Deferred: true,
			// PVC protection's RBAC, installed once for every variant:
			// it only grants reads of pods, which the other variants
			// never make.
			ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
		},
	})
	if err != nil {
		return fmt.Errorf("start the stack: %w", err)
	}
	m.stack = s
	m.rep.Setup.Objects = o.Objects
	m.rep.Setup.StackStart = time.Since(start)
	if m.client, err = newBenchClient(s.Cluster().RESTConfig(), o.Creator); err != nil {
		return err
	}
	if err := createNamespaceAndClass(ctx, m.client, s.DriverName()); err != nil {
		return err
	}
	m.progress("[%s] memory: creating %s bound claims and PVs", m.elapsed(), thousands(o.Objects))
	if err := m.fill(ctx); err != nil {
		return err
	}
	st := m.rep.Setup
	m.progress("  created in %.1f s (other processes used %.2f cores), settled in %.1f s: %d claims and %d PVs Bound, %d rewritten while settling",
		st.Create.Seconds(), st.OtherCores, st.Settle.Seconds(), st.ClaimsBound, st.VolumesBound, st.Rewritten)
	return nil
}

// pids names the processes whose CPU is the benchmark's own: the stack's,
// the sidecar's (if any) and this program's.
func (m *memoryBench) pids(sidecar *framework.Process) map[string]int {
	c := m.stack.Cluster()
	pids := map[string]int{
		"etcd":                          c.Etcd().Pid(),
		"kube-apiserver":                c.APIServer().Pid(),
		clientKCM:                       c.ControllerManager().Pid(),
		"mock-csi-driver":               m.stack.Driver().Pid(),
		clientBench + " (this program)": os.Getpid(),
	}
	if sidecar != nil {
		pids[clientSidecar] = sidecar.Pid()
	}
	return pids
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }
