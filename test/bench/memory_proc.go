package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// procMemory is a process's resident memory from /proc/<pid>/status, in
// bytes: PeakRSS is VmHWM, the most it ever held resident; RSS (VmRSS) is
// RSSAnon, the memory it allocated (for a Go program, mostly its heap),
// plus RSSFile, the pages of its binary (code and read-only data) it
// touched, which the kernel can drop and read again.
type procMemory struct {
	PeakRSS int64 `json:"peakRSS"`
	RSS     int64 `json:"rss"`
	RSSAnon int64 `json:"rssAnon"`
	RSSFile int64 `json:"rssFile"`
}

// ResidentBytes is a process's resident set (VmRSS).
func ResidentBytes(pid int) (int64, error) {
	m, err := readProcMemory(pid)
	return m.RSS, err
}

func readProcMemory(pid int) (procMemory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procMemory{}, err
	}
	return parseProcStatus(data)
}

// parseProcStatus reads the sizes ("VmRSS:\t  51200 kB") out of the
// contents of /proc/<pid>/status. VmHWM and VmRSS must be there; RssAnon
// and RssFile are left zero on kernels before 4.5, which lack them.
func parseProcStatus(data []byte) (procMemory, error) {
	var m procMemory
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

// goMemory is the Go runtime's own account of the sidecar's memory, in
// bytes, from its metrics: Sys is everything the runtime got from the
// system, HeapInuse the heap spans in use; RSS minus Sys is roughly the
// binary's mapped code and data.
type goMemory struct {
	HeapAlloc int64 `json:"heapAlloc"`
	HeapInuse int64 `json:"heapInuse"`
	Sys       int64 `json:"sys"`
}

func scrapeGoMemory(ctx context.Context, url string) (goMemory, error) {
	m, err := scrape(ctx, url)
	if err != nil {
		return goMemory{}, err
	}
	var g goMemory
	for _, f := range []struct {
		name string
		dst  *int64
	}{
		{"go_memstats_heap_alloc_bytes", &g.HeapAlloc},
		{"go_memstats_heap_inuse_bytes", &g.HeapInuse},
		{"go_memstats_sys_bytes", &g.Sys},
	} {
		v, err := m.value(f.name)
		if err != nil {
			return g, err
		}
		*f.dst = int64(v)
	}
	return g, nil
}

// queueDepth is the sum of the sidecar's work queue depths. A scrape
// without workqueue_depth is an error, not an idle sidecar.
func queueDepth(ctx context.Context, url string) (float64, error) {
	m, err := scrape(ctx, url)
	if err != nil {
		return 0, err
	}
	return m.sum("workqueue_depth", nil)
}

// scrape reads a /metrics endpoint in the Prometheus text format.
func scrape(ctx context.Context, url string) (metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return parseMetrics(body)
}

const (
	// logPoll is how often waitLogLine looks at the log: the CPU time
	// read when the line appears is late by up to this.
	logPoll = 50 * time.Millisecond
	// quietWindow and quietCPU define idle: less than quietCPU of CPU
	// time (5% of a core) over the last quietWindow.
	quietWindow = time.Second
	quietCPU    = 50 * time.Millisecond
)

// waitLogLine waits until a process's log has a line containing msg and
// returns the time the line gives and the process's CPU time when the line
// was seen.
func waitLogLine(ctx context.Context, s *framework.Stack, timeout time.Duration, what, path, msg string, pid int) (time.Time, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var offset int64
	var partial []byte
	for {
		lines, next, err := readNewLines(path, offset, partial)
		if err == nil {
			offset, partial = next, lines[len(lines)-1]
			for _, line := range lines[:len(lines)-1] {
				if !bytes.Contains(line, []byte(msg)) {
					continue
				}
				cpu, err := processCPU(pid)
				return klogTime(line, time.Now()), cpu, err
			}
		}
		if err := s.CheckAlive(); err != nil {
			return time.Time{}, 0, fmt.Errorf("while waiting for %s: %w", what, err)
		}
		select {
		case <-ctx.Done():
			return time.Time{}, 0, fmt.Errorf("gave up waiting for %s after %s: %w", what, timeout, context.Cause(ctx))
		case <-time.After(logPoll):
		}
	}
}

// readNewLines reads a file from offset on and splits what it read, after
// the partial line left by the previous call, into lines; the last element
// is the new partial line (empty after a newline).
func readNewLines(path string, offset int64, partial []byte) ([][]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, offset, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, offset, 1<<40))
	if err != nil {
		return nil, offset, err
	}
	return bytes.Split(append(bytes.Clone(partial), data...), []byte("\n")), offset + int64(len(data)), nil
}

// klogTime is the time in a klog header ("I1121 06:52:09.332696 ..."),
// in the year of now and the local zone as klog writes it; now if the line
// has no header.
func klogTime(line []byte, now time.Time) time.Time {
	if len(line) < 21 {
		return now
	}
	t, err := time.ParseInLocation(klogTimeLayout, string(line[1:21]), time.Local)
	if err != nil {
		return now
	}
	return t.AddDate(now.Year(), 0, 0)
}

// waitQuiet waits until a process has used less than quietCPU over
// quietWindow and ready (if any) holds, and returns when the quiet window
// began.
func waitQuiet(ctx context.Context, s *framework.Stack, timeout time.Duration, what string, pid int, ready func(context.Context) (bool, error)) (time.Time, error) {
	type sample struct {
		at  time.Time
		cpu time.Duration
	}
	var samples []sample
	var since time.Time
	err := s.WaitFor(ctx, timeout, what, func(ctx context.Context) (bool, error) {
		cpu, err := processCPU(pid)
		if err != nil {
			return false, err
		}
		now := sample{time.Now(), cpu}
		samples = append(samples, now)
		// Keep the newest sample at least quietWindow old, and the newer.
		for len(samples) > 1 && now.at.Sub(samples[1].at) >= quietWindow {
			samples = samples[1:]
		}
		first := samples[0]
		if now.at.Sub(first.at) < quietWindow {
			return false, fmt.Errorf("watched for %s", now.at.Sub(first.at).Round(time.Millisecond))
		}
		if used := now.cpu - first.cpu; used >= quietCPU {
			return false, fmt.Errorf("%s of CPU in the last %s", used, now.at.Sub(first.at).Round(time.Millisecond))
		}
		if ready != nil {
			if ok, err := ready(ctx); !ok {
				return false, err
			}
		}
		since = first.at
		return true, nil
	})
	return since, err
}

// SaveHeapProfile writes the Go heap profile served at url to path.
func SaveHeapProfile(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
