package measure

import (
	"os"
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
	want := ProcMemory{PeakRSS: 194332 << 10, RSS: 187456 << 10, RSSAnon: 142336 << 10, RSSFile: 45120 << 10}
	if m != want {
		t.Errorf("parseProcStatus = %+v, want %+v", m, want)
	}
	if got := MiB(m.PeakRSS); got < 189.7 || got > 189.8 {
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

func TestReadProcMemoryAndCPUOfThisProcess(t *testing.T) {
	m, err := ReadProcMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.PeakRSS < m.RSS {
		t.Errorf("own memory %+v: want 0 < RSS <= peak", m)
	}
	if rss, err := ResidentBytes(os.Getpid()); err != nil || rss <= 0 {
		t.Errorf("own resident bytes %d, %v", rss, err)
	}
	if _, err := ProcessCPU(os.Getpid()); err != nil {
		t.Errorf("own CPU time: %v", err)
	}
}

// The machine's busy time is shared out: what the named processes used is
// theirs, the rest is other processes'.
func TestUsageBetweenSamples(t *testing.T) {
	a := SampleCPU(map[string]int{"self": os.Getpid(), "gone": 1 << 30})
	b := a
	b.At = a.At.Add(2e9)
	b.processes = map[string]time.Duration{"self": a.processes["self"] + 1e9}
	b.busy, b.total = a.busy+3e9, a.total+4e9
	u := UsageBetween(a, b)
	if u.Cores["self"] != 0.5 || len(u.Cores) != 1 {
		t.Errorf("cores %v, want self at 0.5 and nothing of a process never read", u.Cores)
	}
	if u.MachineBusy != 0.75 || u.OtherCores != 1 {
		t.Errorf("machine busy %v, other cores %v; want 0.75 and 1", u.MachineBusy, u.OtherCores)
	}
}
