package memory

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// Report is the whole memory benchmark.
type Report struct {
	Options Options `json:"-"`
	bench.Header
	Variants []bench.Variant `json:"variants"`
	// SidecarArgs are the flags every variant ran with, besides the
	// framework's own and the variant's.
	SidecarArgs []string      `json:"sidecarArgs"`
	Setup       Setup         `json:"setup"`
	Runs        []*SidecarRun `json:"runs"`
	// Limits is the memory limit sweep at the largest size; nil when it did
	// not run.
	Limits  *LimitSweep `json:"limits,omitempty"`
	GoalMiB float64     `json:"goalMiB"`
	// Shipped is the variant with the shipped settings (Options.Shipped).
	Shipped     string        `json:"shipped"`
	Batch       int           `json:"batch"`
	SyncTimeout time.Duration `json:"syncTimeout"`
}

// Setup is how the cluster was filled, step by step, while no sidecar ran.
type Setup struct {
	// Objects is the number of claims, and of PVs, the cluster held in
	// the end: the largest size it was filled to.
	Objects    int           `json:"objects"`
	StackStart time.Duration `json:"stackStart"`
	// Fills grew the cluster to each size, in order.
	Fills []Fill `json:"fills"`
	// End is etcd's and kube-apiserver's memory after the last run.
	End      StackMemory `json:"end"`
	Problems []string    `json:"problems,omitempty"`
}

// Fill is one step of filling the cluster: from the previous size to
// Pairs.
type Fill struct {
	// Pairs is the number of claims, and of PVs, after the step; Added
	// how many of each it wrote.
	Pairs int `json:"pairs"`
	Added int `json:"added"`
	// Create is the benchmark's writes of the added pairs, with
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
	OtherCores float64 `json:"otherCores"`
	// Stack is etcd's and kube-apiserver's memory once settled.
	Stack StackMemory `json:"stack"`
}

// PairsPerSecond is how fast the step wrote its pairs.
func (f Fill) PairsPerSecond() float64 {
	if f.Create <= 0 {
		return 0
	}
	return float64(f.Added) / f.Create.Seconds()
}

// SidecarRun is one sidecar process's figures. Sizes are bytes; times are
// from the sidecar's start.
type SidecarRun struct {
	Variant string `json:"variant"`
	// Pairs is the number of bound claims, and PVs, cached; zero in a
	// report of one size, whose runs all had Setup.Objects.
	Pairs int `json:"pairs"`
	Run   int `json:"run"`
	Order int `json:"order"`
	// SyncTime is until the sidecar logged that its caches were synced;
	// SyncCPU its CPU time (user and system) by then.
	SyncTime time.Duration `json:"syncTime"`
	SyncCPU  time.Duration `json:"syncCPU"`
	// FirstClaimBound is until a claim the benchmark created right after
	// starting the sidecar was Bound: what a user waits for after a
	// restart, caches and all. Zero when it was not seen Bound.
	FirstClaimBound time.Duration `json:"firstClaimBound"`
	// IdleTime is until its work queues were empty and it used (almost)
	// no CPU; Idle is its memory then, before the batch.
	IdleTime time.Duration      `json:"idleTime"`
	IdleCPU  time.Duration      `json:"idleCPU"`
	Idle     measure.ProcMemory `json:"idle"`
	// BatchProvision is from the first create call until every batch
	// claim was Bound; BatchDelete from the first delete call until the
	// claims (the first one too), their PVs and the driver's volumes were
	// gone.
	BatchProvision time.Duration `json:"batchProvision"`
	BatchDelete    time.Duration `json:"batchDelete"`
	BatchBound     int           `json:"batchBound"`
	ClaimsLeft     int           `json:"claimsLeft"`
	PVsLeft        int           `json:"pvsLeft"`
	VolumesLeft    int           `json:"volumesLeft"`
	// End is the memory after the batch: End.PeakRSS (VmHWM) is the
	// run's peak RSS. CPU is the CPU time the process used in all.
	End  measure.ProcMemory `json:"end"`
	CPU  time.Duration      `json:"cpu"`
	Wall time.Duration      `json:"wall"`
	// Heap is the Go runtime's view at the end, from the sidecar's
	// metrics; zero when they could not be read.
	Heap measure.GoMemory `json:"heap"`
	// OtherCores is what processes outside the stack used during the
	// run, in cores. It does not change the memory figures, but slows
	// the sidecar's sync down.
	OtherCores float64  `json:"otherCores"`
	Problems   []string `json:"problems,omitempty"`
}
