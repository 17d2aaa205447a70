package devices

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// Mount is one line of /proc/<pid>/mountinfo (proc(5)).
type Mount struct {
	// MajorMinor is the st_dev of the mounted filesystem, "8:1". Major 0 is
	// an anonymous device (tmpfs, overlay, and also btrfs), so it does not
	// identify a block device; Source is needed too.
	MajorMinor string
	// Root is the path inside the filesystem that is mounted: "/" for a
	// whole filesystem, "/sdb" for a bind mount of the device node /dev/sdb
	// out of devtmpfs, which is how kubelet maps a block-mode volume.
	Root       string
	MountPoint string
	FSType     string
	Source     string
}

// ParseMountInfo parses mountinfo, undoing the octal escapes (\040 for a
// space) the kernel puts in paths.
func ParseMountInfo(data []byte) ([]Mount, error) {
	var mounts []Mount
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Fields(line)
		sep := -1
		for i := 6; i < len(fields); i++ {
			if fields[i] == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || len(fields) < sep+3 {
			return nil, fmt.Errorf("parsing mountinfo: unexpected line %q", line)
		}
		mounts = append(mounts, Mount{
			MajorMinor: fields[2],
			Root:       unescapeMountInfo(fields[3]),
			MountPoint: unescapeMountInfo(fields[4]),
			FSType:     fields[sep+1],
			Source:     unescapeMountInfo(fields[sep+2]),
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("parsing mountinfo: %w", err)
	}
	return mounts, nil
}

// unescapeMountInfo decodes the kernel's \ooo escapes.
func unescapeMountInfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// mountIndex answers "is this device mounted somewhere, and where".
type mountIndex struct {
	byMajMin map[string]string // "8:1" -> mount point
	byPath   map[string]string // resolved /dev path -> mount point
}

// newMountIndex indexes mounts by device number and by resolved device path,
// resolving sources such as /dev/mapper/vg-lv or /dev/disk/by-uuid/... to
// their kernel node through fsys.
func newMountIndex(fsys FS, mounts []Mount) *mountIndex {
	idx := &mountIndex{byMajMin: map[string]string{}, byPath: map[string]string{}}
	addPath := func(p, mp string) {
		if r, err := fsys.EvalSymlinks(p); err == nil {
			p = r
		}
		if isUnderDev(p) {
			if _, ok := idx.byPath[p]; !ok {
				idx.byPath[p] = mp
			}
		}
	}
	for _, m := range mounts {
		if !strings.HasPrefix(m.MajorMinor, "0:") {
			if _, ok := idx.byMajMin[m.MajorMinor]; !ok {
				idx.byMajMin[m.MajorMinor] = m.MountPoint
			}
		}
		if strings.HasPrefix(m.Source, DevDir+"/") {
			addPath(filepath.Clean(m.Source), m.MountPoint)
		}
		if m.FSType == "devtmpfs" && m.Root != "/" {
			addPath(filepath.Join(DevDir, m.Root), m.MountPoint)
		}
	}
	return idx
}

// lookup returns where a device with kernel path kname (resolved) and
// device number majMin ("" when unknown) is mounted.
func (idx *mountIndex) lookup(kname, majMin string) (string, bool) {
	if mp, ok := idx.byPath[kname]; ok {
		return mp, true
	}
	if majMin != "" {
		if mp, ok := idx.byMajMin[majMin]; ok {
			return mp, true
		}
	}
	return "", false
}
