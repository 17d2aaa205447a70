package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc CPU times (USER_HZ), 100 on every Linux
// architecture Go supports.
const clockTick = 10 * time.Millisecond

// cpuSample is the CPU time used so far by each component and by the whole
// machine, read from /proc.
type cpuSample struct {
	at        time.Time
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

// sampleCPU reads the CPU time of the named processes and of the machine. A
// process that cannot be read is left out rather than failing the run.
func sampleCPU(pids map[string]int) cpuSample {
	s := cpuSample{at: time.Now(), processes: map[string]time.Duration{}}
	for name, pid := range pids {
		if d, err := processCPU(pid); err == nil {
			s.processes[name] = d
		}
	}
	s.busy, s.total, _ = machineCPU()
	return s
}

// usageBetween turns two samples into a phase's usage.
func usageBetween(a, b cpuSample) CPUUsage {
	wall := b.at.Sub(a.at).Seconds()
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

// processCPU returns a process's user plus system time from
// /proc/<pid>/stat.
func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// the fields after it are plain. utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// machineCPU returns the busy and total time of all cores from the "cpu"
// line of /proc/stat.
func machineCPU() (busy, total time.Duration, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 8 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("unexpected /proc/stat: %q", line)
	}
	// user nice system idle iowait irq softirq steal [guest guest_nice],
	// guest time being already part of user.
	for i, f := range fields[1:min(len(fields), 9)] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, err
		}
		d := time.Duration(n) * clockTick
		total += d
		if i != 3 && i != 4 {
			busy += d
		}
	}
	return busy, total, nil
}
