package bench

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"time"
)

// The components' logs say what the audit log cannot: what the sidecar
// meant to send and what the driver was asked.
var (
	// eventLogMessage is how client-go's event broadcaster logs every
	// event the sidecar records (StartStructuredLogging(0), so at any -v).
	// The log shows each event even when the broadcaster later drops it
	// unsent: its queue holds 1,000 events, sent one at a time, and it
	// overflows when the API server is slow or the client throttled.
	eventLogMessage = []byte(`"Event occurred"`)
	// driverCallLine is the mock driver's line for each finished
	// CreateVolume or DeleteVolume (mutating calls are logged at -v=0).
	driverCallLine = regexp.MustCompile(`"Call (succeeded|failed)" .*method="(CreateVolume|DeleteVolume)"`)
)

// klogTimeLayout is the time in a klog header line: "I1121 06:52:09.332696".
const klogTimeLayout = "0102 15:04:05.000000"

// countLogLines counts, per window, the lines of a klog log for which key
// returns a non-empty key. A klog header has no year; the windows' own year
// is used, and the local zone, as klog writes it.
func countLogLines(path string, windows []window, key func(line []byte) string) ([]map[string]int, error) {
	counts := make([]map[string]int, len(windows))
	for i := range counts {
		counts[i] = map[string]int{}
	}
	if len(windows) == 0 {
		return counts, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	year := windows[0].From.Year()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 21 {
			continue
		}
		k := key(line)
		if k == "" {
			continue
		}
		t, err := time.ParseInLocation(klogTimeLayout, string(line[1:21]), time.Local)
		if err != nil {
			continue
		}
		t = t.AddDate(year, 0, 0)
		for i, w := range windows {
			if w.contains(t) {
				counts[i][k]++
			}
		}
	}
	return counts, sc.Err()
}

// RecordsEvent tells whether a sidecar's log line is client-go's line for
// an event it recorded.
func RecordsEvent(line []byte) bool { return bytes.Contains(line, eventLogMessage) }

// sidecarEventKey picks the lines of recorded events.
func sidecarEventKey(line []byte) string {
	if RecordsEvent(line) {
		return "event"
	}
	return ""
}

// driverCallKey picks the driver's finished calls, as "CreateVolume" or
// "CreateVolume failed".
func driverCallKey(line []byte) string {
	m := driverCallLine.FindSubmatch(line)
	if m == nil {
		return ""
	}
	if string(m[1]) == "failed" {
		return string(m[2]) + " failed"
	}
	return string(m[2])
}
