package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// procStatus is the part of a real /proc/<pid>/status around the sizes.
const procStatus = `Name:	csi-provisioner
Umask:	0022
State:	S (sleeping)
VmPeak:	 1876204 kB
VmSize:	 1876204 kB
VmHWM:	  194332 kB
VmRSS:	  187456 kB
RssAnon:	  142336 kB
RssFile:	   45120 kB
RssShmem:	       0 kB
Threads:	14
`

func TestParseProcStatus(t *testing.T) {
	m, err := parseProcStatus([]byte(procStatus))
	if err != nil {
		t.Fatal(err)
	}
	want := procMemory{PeakRSS: 194332 << 10, RSS: 187456 << 10, RSSAnon: 142336 << 10, RSSFile: 45120 << 10}
	if m != want {
		t.Errorf("parseProcStatus = %+v, want %+v", m, want)
	}
	if got := mib(m.PeakRSS); got < 189.7 || got > 189.8 {
		t.Errorf("peak RSS = %.2f MiB, want 189.78", got)
	}
}

func TestParseProcStatusWithoutRSSSplit(t *testing.T) {
	// Kernels before 4.5 have no RssAnon and RssFile lines.
	m, err := parseProcStatus([]byte("VmHWM:\t 2048 kB\nVmRSS:\t 1024 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.PeakRSS != 2<<20 || m.RSS != 1<<20 || m.RSSAnon != 0 || m.RSSFile != 0 {
		t.Errorf("parseProcStatus = %+v", m)
	}
}

func TestParseProcStatusErrors(t *testing.T) {
	for name, status := range map[string]string{
		"zombie, no sizes": "Name:\tcsi-provisioner\nState:\tZ (zombie)\n",
		"no VmRSS":         "VmHWM:\t 2048 kB\n",
		"unit":             "VmHWM:\t 2048 MB\nVmRSS:\t 1024 kB\n",
		"number":           "VmHWM:\t many kB\nVmRSS:\t 1024 kB\n",
	} {
		if m, err := parseProcStatus([]byte(status)); err == nil {
			t.Errorf("%s: parseProcStatus = %+v, want an error", name, m)
		}
	}
}

func TestReadProcMemoryOfThisProcess(t *testing.T) {
	m, err := readProcMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.PeakRSS < m.RSS {
		t.Errorf("own memory %+v: want 0 < RSS <= peak", m)
	}
}

func TestMetricValue(t *testing.T) {
	m, err := parseMetrics([]byte(`# HELP go_memstats_heap_inuse_bytes Number of heap bytes that are in use.
# TYPE go_memstats_heap_inuse_bytes gauge
go_memstats_heap_inuse_bytes 1.03686144e+08
go_memstats_heap_inuse_bytes_total 7
# HELP workqueue_depth [ALPHA] Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="claims"} 3
workqueue_depth{name="volumes"} 0
workqueue_depth{name="pv-protection"} 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := m.value("go_memstats_heap_inuse_bytes"); err != nil || v != 103686144 {
		t.Errorf("heap in use = %v, %v; want 103686144", v, err)
	}
	if _, err := m.value("go_memstats_sys_bytes"); err == nil {
		t.Error("a missing metric: want an error")
	}
	if v, err := m.sum("workqueue_depth", nil); err != nil || v != 5 {
		t.Errorf("queue depth = %v, %v; want 5", v, err)
	}
	if v, err := m.sum("workqueue_depth", map[string]string{"name": "claims"}); err != nil || v != 3 {
		t.Errorf("depth of the claims queue = %v, %v; want 3", v, err)
	}
}

// A sidecar whose scrape lacks workqueue_depth is not idle.
func TestQueueDepthWithoutTheMetricIsAnError(t *testing.T) {
	m, err := parseMetrics([]byte("go_goroutines 12\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := m.sum("workqueue_depth", nil); err == nil {
		t.Errorf("queue depth = %v; want an error", v)
	}
}

func TestKlogTime(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.Local)
	got := klogTime([]byte(`I1121 11:52:37.985440   22974 controller.go:873] "Started provisioner controller"`), now)
	if want := time.Date(2026, 11, 21, 11, 52, 37, 985440000, time.Local); !got.Equal(want) {
		t.Errorf("klogTime = %v, want %v", got, want)
	}
	if got := klogTime([]byte("panic: oops"), now); !got.Equal(now) {
		t.Errorf("a line without header: %v, want now", got)
	}
}

// readNewLines hands out each line once, whole, however the writes split
// it.
func TestReadNewLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var offset int64
	var partial []byte
	var seen []string
	read := func() {
		t.Helper()
		lines, next, err := readNewLines(path, offset, partial)
		if err != nil {
			t.Fatal(err)
		}
		offset, partial = next, lines[len(lines)-1]
		for _, l := range lines[:len(lines)-1] {
			seen = append(seen, string(l))
		}
	}
	for _, chunk := range []string{"first line\nsec", "ond ", "line\n", "", "third\nfour"} {
		if _, err := f.WriteString(chunk); err != nil {
			t.Fatal(err)
		}
		read()
	}
	if got, want := strings.Join(seen, "|"), "first line|second line|third"; got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
	if string(partial) != "four" {
		t.Errorf("partial line %q, want %q", partial, "four")
	}
}
