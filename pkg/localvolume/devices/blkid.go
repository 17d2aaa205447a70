package devices

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
)

// Signatures is what a low-level blkid probe found on a device.
type Signatures struct {
	// Type is TYPE: a filesystem (ext4, xfs), LVM2_member,
	// linux_raid_member, crypto_LUKS, swap, zfs_member...
	Type string
	// Usage is USAGE: filesystem, raid, crypto, other.
	Usage string
	// PTType is PTTYPE: a partition table (gpt, dos).
	PTType string
	// PartEntry is set when PART_ENTRY_* keys are present: the probed device
	// is a partition and these describe its entry in the parent's table.
	PartEntry bool
	// Ambivalent is set when blkid exits with status 8: several signatures
	// that contradict each other, which is still "something is there".
	Ambivalent bool
	// Values holds every KEY=value pair blkid printed.
	Values map[string]string
}

// HasSignature reports whether the device carries any data signature: a
// filesystem, a partition table, an LVM, RAID, crypto or other label. It
// fails closed: every key counts except DEVNAME (the name given to blkid)
// and PART_ENTRY_* (a partition's entry in its parent's table lives in the
// parent, not on the partition: wipefs on the partition cannot remove it, so
// counting it would make every partition look unwipeable).
func (s Signatures) HasSignature() bool {
	if s.Ambivalent {
		return true
	}
	for k := range s.Values {
		if k != "DEVNAME" && !strings.HasPrefix(k, "PART_ENTRY_") {
			return true
		}
	}
	return s.Type != "" || s.PTType != ""
}

// String lists the signature keys, for rejection messages: "TYPE=ext4".
func (s Signatures) String() string {
	var parts []string
	for _, k := range []string{"TYPE", "PTTYPE", "USAGE"} {
		if v, ok := s.Values[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	if s.Ambivalent {
		parts = append(parts, "ambivalent")
	}
	if len(parts) == 0 {
		keys := make([]string, 0, len(s.Values))
		for k := range s.Values {
			if k != "DEVNAME" && !strings.HasPrefix(k, "PART_ENTRY_") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, k+"="+s.Values[k])
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// ParseBlkidExport parses the output of `blkid -p -o export <path>`: one
// KEY=value per line, with shell-special characters in values escaped by a
// backslash (LABEL=my\ data). A line without "=" is an error.
func ParseBlkidExport(data []byte) (Signatures, error) {
	s := Signatures{Values: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" {
			return Signatures{}, fmt.Errorf("parsing blkid output: unexpected line %q", line)
		}
		v = unescapeBlkid(v)
		s.Values[k] = v
		switch {
		case k == "TYPE":
			s.Type = v
		case k == "USAGE":
			s.Usage = v
		case k == "PTTYPE":
			s.PTType = v
		case strings.HasPrefix(k, "PART_ENTRY_"):
			s.PartEntry = true
		}
	}
	if err := sc.Err(); err != nil {
		return Signatures{}, fmt.Errorf("parsing blkid output: %w", err)
	}
	return s, nil
}

func unescapeBlkid(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// Prober reports the signatures on a device.
type Prober interface {
	Probe(ctx context.Context, devPath string) (Signatures, error)
}

// blkid exit statuses (blkid(8)).
const (
	blkidNothingFound = 2
	blkidAmbivalent   = 8
)

// BlkidArgs returns the arguments BlkidProber passes to blkid for devPath:
// -p probes the device itself, bypassing blkid's cache and udev, which may
// be stale or absent in a container.
func BlkidArgs(devPath string) []string {
	return []string{"-p", "-o", "export", devPath}
}

// BlkidProber probes devices with `blkid -p -o export <path>`.
type BlkidProber struct {
	Runner Runner
}

// Probe runs blkid. Exit status 2 means nothing was found and is not an
// error; exit status 8 (ambivalent result) is reported as a signature.
func (p BlkidProber) Probe(ctx context.Context, devPath string) (Signatures, error) {
	out, err := p.Runner.Run(ctx, "blkid", BlkidArgs(devPath)...)
	if err != nil {
		code, ok := ExitCode(err)
		switch {
		case ok && code == blkidNothingFound:
			return Signatures{Values: map[string]string{}}, nil
		case ok && code == blkidAmbivalent:
			s, perr := ParseBlkidExport(out)
			if perr != nil {
				s = Signatures{Values: map[string]string{}}
			}
			s.Ambivalent = true
			return s, nil
		}
		return Signatures{}, fmt.Errorf("probing %s: %w", devPath, err)
	}
	return ParseBlkidExport(out)
}
