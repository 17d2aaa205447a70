package measure

import (
	"os"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// CPUSample is the CPU time used so far by each component and by the whole
// machine, read from /proc.
type CPUSample struct {
	// At is when the sample was taken.
	At        time.Time
	processes map[string]time.Duration
	busy      time.Duration // all cores, everything but idle and iowait
	total     time.Duration // all cores
}

// CPUUsage is the CPU a phase took: per component, in cores (CPU seconds
// per wall second), the machine's busy share of all its cores, and what
// the rest of the machine used, in cores: anything else running on it
// (another test run, a build) competes with the components and skews the
// figures.
type CPUUsage struct {
	Cores       map[string]float64 `json:"cores"`
	MachineBusy float64            `json:"machineBusy"`
	OtherCores  float64            `json:"otherCores"`
}

// SampleCPU reads the CPU time of the named processes and of the machine. A
// process that cannot be read is left out rather than failing the run.
func SampleCPU(pids map[string]int) CPUSample {
	s := CPUSample{At: time.Now(), processes: map[string]time.Duration{}}
	for name, pid := range pids {
		if d, err := ProcessCPU(pid); err == nil {
			s.processes[name] = d
		}
	}
	s.busy, s.total, _ = machineCPU()
	return s
}

// UsageBetween turns two samples into a phase's usage.
func UsageBetween(a, b CPUSample) CPUUsage {
	wall := b.At.Sub(a.At).Seconds()
	u := CPUUsage{Cores: map[string]float64{}}
	if wall <= 0 {
		return u
	}
	for name, end := range b.processes {
		if start, ok := a.processes[name]; ok {
			u.Cores[name] = (end - start).Seconds() / wall
		}
	}
	if total := b.total - a.total; total > 0 {
		u.MachineBusy = float64(b.busy-a.busy) / float64(total)
	}
	busyCores := (b.busy - a.busy).Seconds() / wall
	for _, c := range u.Cores {
		busyCores -= c
	}
	u.OtherCores = max(0, busyCores)
	return u
}

// Component names of the stack's processes, as the reports show their CPU.
const (
	ProcessEtcd      = "etcd"
	ProcessAPIServer = "kube-apiserver"
	ProcessDriver    = "mock-csi-driver"
	// ProcessBench is this program, which creates and watches the claims.
	ProcessBench = ClientBench + " (this program)"
)

// StackPIDs names the processes whose CPU is the benchmark's own: the
// stack's control plane and driver, sidecar (if not nil) and this program.
func StackPIDs(s *framework.Stack, sidecar *framework.Process) map[string]int {
	c := s.Cluster()
	pids := map[string]int{
		ProcessEtcd:      c.Etcd().Pid(),
		ProcessAPIServer: c.APIServer().Pid(),
		ClientKCM:        c.ControllerManager().Pid(),
		ProcessDriver:    s.Driver().Pid(),
		ProcessBench:     os.Getpid(),
	}
	if sidecar != nil {
		pids[ClientSidecar] = sidecar.Pid()
	}
	return pids
}
