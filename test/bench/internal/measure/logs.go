package measure

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"regexp"
	"time"
)

// maxLine is the longest log line read: the sidecar dumps whole objects at
// -v=4, and an audit event of a large LIST is long too.
const maxLine = 16 << 20

// ScanLines hands each line of a file to each, read as a stream.
func ScanLines(path string, each func(line []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		each(sc.Bytes())
	}
	return sc.Err()
}

// CountLines counts, in one pass over a log, the lines each of matches
// picks.
func CountLines(path string, matches ...func(line []byte) bool) ([]int, error) {
	counts := make([]int, len(matches))
	err := ScanLines(path, func(line []byte) {
		for i, match := range matches {
			if match(line) {
				counts[i]++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// CountLogLines counts, per window, the lines of a klog log for which key
// returns a non-empty key. A klog header has no year; the windows' own year
// is used.
func CountLogLines(path string, windows []Window, key func(line []byte) string) ([]map[string]int, error) {
	counts := make([]map[string]int, len(windows))
	for i := range counts {
		counts[i] = map[string]int{}
	}
	if len(windows) == 0 {
		return counts, nil
	}
	year := windows[0].From.Year()
	err := ScanLines(path, func(line []byte) {
		k := key(line)
		if k == "" {
			return
		}
		t, ok := KlogTime(line, year)
		if !ok {
			return
		}
		for i, w := range windows {
			if w.Contains(t) {
				counts[i][k]++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// klogTimeLayout is the time in a klog header line: "I1121 06:52:09.332696".
const klogTimeLayout = "0102 15:04:05.000000"

// KlogTime is the time in a klog header ("I1121 06:52:09.332696 ..."), in
// the given year and the local zone, as klog writes it; false if the line
// has no header.
func KlogTime(line []byte, year int) (time.Time, bool) {
	if len(line) < 21 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(klogTimeLayout, string(line[1:21]), time.Local)
	if err != nil {
		return time.Time{}, false
	}
	return t.AddDate(year, 0, 0), true
}

// ReadNewLines reads a file from offset on and splits what it read, after
// the partial line left by the previous call, into lines; the last element
// is the new partial line (empty after a newline). It follows a log that a
// process is still writing.
func ReadNewLines(path string, offset int64, partial []byte) ([][]byte, int64, error) {
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

// driverCallLine is the mock driver's line for each finished CreateVolume
// or DeleteVolume (mutating calls are logged at -v=0).
var driverCallLine = regexp.MustCompile(`"Call (succeeded|failed)" .*method="(CreateVolume|DeleteVolume)"`)

// DriverCallKey picks the driver's finished calls, as "CreateVolume" or
// "CreateVolume failed", for CountLogLines.
func DriverCallKey(line []byte) string {
	m := driverCallLine.FindSubmatch(line)
	if m == nil {
		return ""
	}
	if string(m[1]) == "failed" {
		return string(m[2]) + " failed"
	}
	return string(m[2])
}
