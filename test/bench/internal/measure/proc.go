package measure

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ProcMemory is a process's resident memory from /proc/<pid>/status, in
// bytes: PeakRSS is VmHWM, the most it ever held resident; RSS (VmRSS) is
// RSSAnon, the memory it allocated (for a Go program, mostly its heap),
// plus RSSFile, the pages of its binary (code and read-only data) it
// touched, which the kernel can drop and read again.
type ProcMemory struct {
	PeakRSS int64 `json:"peakRSS"`
	RSS     int64 `json:"rss"`
	RSSAnon int64 `json:"rssAnon"`
	RSSFile int64 `json:"rssFile"`
}

// ResidentBytes is a process's resident set (VmRSS).
func ResidentBytes(pid int) (int64, error) {
	m, err := ReadProcMemory(pid)
	return m.RSS, err
}

// ReadProcMemory reads a process's sizes from /proc/<pid>/status.
func ReadProcMemory(pid int) (ProcMemory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ProcMemory{}, err
	}
	return parseProcStatus(data)
}

// parseProcStatus reads the sizes ("VmRSS:\t  51200 kB") out of the
// contents of /proc/<pid>/status. VmHWM and VmRSS must be there; RssAnon
// and RssFile are left zero on kernels before 4.5, which lack them.
func parseProcStatus(data []byte) (ProcMemory, error) {
	var m ProcMemory
	fields := map[string]*int64{"VmHWM": &m.PeakRSS, "VmRSS": &m.RSS, "RssAnon": &m.RSSAnon, "RssFile": &m.RSSFile}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), ":")
		dst := fields[key]
		if dst == nil {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("unexpected %s line in /proc status: %q", key, sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("%s: %w", key, err)
		}
		*dst = kb << 10
		if key == "VmHWM" || key == "VmRSS" {
			found++
		}
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	if found != 2 {
		// A zombie or a kernel thread has no Vm lines.
		return m, errors.New("no VmHWM and VmRSS in /proc status")
	}
	return m, nil
}

// clockTick is the unit of /proc CPU times (USER_HZ), 100 on every Linux
// architecture Go supports.
const clockTick = 10 * time.Millisecond

// ProcessCPU returns a process's user plus system time from
// /proc/<pid>/stat.
func ProcessCPU(pid int) (time.Duration, error) {
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
