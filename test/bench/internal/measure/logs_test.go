package measure

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestKlogTime(t *testing.T) {
	got, ok := KlogTime([]byte(`I1121 11:52:37.985440   22974 controller.go:873] "Started provisioner controller"`), 2026)
	if want := time.Date(2026, 11, 21, 11, 52, 37, 985440000, time.Local); !ok || !got.Equal(want) {
		t.Errorf("KlogTime = %v, %v; want %v", got, ok, want)
	}
	if got, ok := KlogTime([]byte("panic: oops"), 2026); ok {
		t.Errorf("a line without header: %v", got)
	}
}

// ReadNewLines hands out each line once, whole, however the writes split
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
		lines, next, err := ReadNewLines(path, offset, partial)
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

// writeLog writes text as a log file and returns its path.
func writeLog(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Each phase counts the lines logged within it: the recorded events and
// the driver's finished calls, failed ones apart.
func TestCountLogLinesPerWindow(t *testing.T) {
	day := func(h, m int) time.Time { return time.Date(2026, 11, 26, h, m, 0, 0, time.Local) }
	sidecar := writeLog(t, "csi-provisioner.log", `I1126 06:42:09.454306 1 event.go:395] "Event occurred" object="bench/claim-00000" reason="Provisioning"
I1126 06:42:10.000000 1 controller.go:1] "Started provisioner controller"
I1126 06:50:00.000000 1 event.go:395] "Event occurred" object="bench/claim-00000" reason="ProvisioningSucceeded"
"Event occurred" without a header
`)
	driver := writeLog(t, "mock-csi-driver.log", `I1126 06:42:09.000000 1 server.go:1] "Call succeeded" method="CreateVolume"
I1126 06:42:09.500000 1 server.go:1] "Call failed" method="CreateVolume" err="injected"
I1126 06:42:09.600000 1 server.go:1] "Call succeeded" method="NodeGetInfo"
I1126 06:50:01.000000 1 server.go:1] "Call succeeded" method="DeleteVolume"
`)
	windows := []Window{{From: day(6, 40), To: day(6, 45)}, {From: day(6, 45), To: day(7, 0)}}
	events, err := CountLogLines(sidecar, windows, EventKey)
	if err != nil {
		t.Fatal(err)
	}
	if events[0]["event"] != 1 || events[1]["event"] != 1 {
		t.Errorf("events per window %v, want one in each", events)
	}
	calls, err := CountLogLines(driver, windows, DriverCallKey)
	if err != nil {
		t.Fatal(err)
	}
	if c := calls[0]; c["CreateVolume"] != 1 || c["CreateVolume failed"] != 1 || len(c) != 2 {
		t.Errorf("first window's calls %v, want one CreateVolume and one failed", c)
	}
	if c := calls[1]; c["DeleteVolume"] != 1 || len(c) != 1 {
		t.Errorf("second window's calls %v, want one DeleteVolume", c)
	}
}
