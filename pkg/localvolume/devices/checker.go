package devices

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Default locations read by Checker.
const (
	// DefaultMountInfoPath is this process's view of the mounts. In a
	// container that is the container's mount namespace: the agent should
	// run with hostPID and set Checker.MountInfoPath to /proc/1/mountinfo
	// to see the host's mounts.
	DefaultMountInfoPath = "/proc/self/mountinfo"
	DefaultSysClassBlock = "/sys/class/block"
)

// Checker decides whether devices may be used, and selects them. All fields
// but the two paths are required; a nil one makes Select fail rather than
// skip a check.
type Checker struct {
	FS     FS
	Prober Prober
	Opener ExclusiveOpener
	// MountInfoPath is read once per Select; "" means DefaultMountInfoPath.
	MountInfoPath string
	// SysClassBlock is where <name>/dev (major:minor) and <name>/holders
	// are read; "" means DefaultSysClassBlock.
	SysClassBlock string
}

// NewOSChecker returns a Checker on the host: OSFS, blkid through r, and
// O_EXCL opens.
func NewOSChecker(r Runner) *Checker {
	return &Checker{FS: OSFS{}, Prober: BlkidProber{Runner: r}, Opener: OSExclusiveOpener{}}
}

func (c *Checker) validate() error {
	var missing []string
	if c.FS == nil {
		missing = append(missing, "FS")
	}
	if c.Prober == nil {
		missing = append(missing, "Prober")
	}
	if c.Opener == nil {
		missing = append(missing, "Opener")
	}
	if len(missing) > 0 {
		return fmt.Errorf("devices.Checker: %s not set", strings.Join(missing, ", "))
	}
	return nil
}

// loadMounts reads and indexes mountinfo. Failing to read it is an error for
// the whole Select: without it no device can be shown to be unmounted.
func (c *Checker) loadMounts() (*mountIndex, error) {
	p := c.MountInfoPath
	if p == "" {
		p = DefaultMountInfoPath
	}
	data, err := c.FS.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading mounts: %w", err)
	}
	mounts, err := ParseMountInfo(data)
	if err != nil {
		return nil, fmt.Errorf("reading mounts from %s: %w", p, err)
	}
	return newMountIndex(c.FS, mounts), nil
}

// sysPath names a file of the device kpath (resolved, under /dev) in sysfs.
// The kernel names a device that lives in a /dev subdirectory with "!" for
// "/": /dev/cciss/c0d0 is cciss!c0d0.
func (c *Checker) sysPath(kpath string, elem ...string) string {
	root := c.SysClassBlock
	if root == "" {
		root = DefaultSysClassBlock
	}
	name := strings.ReplaceAll(strings.TrimPrefix(kpath, DevDir+"/"), "/", "!")
	return filepath.Join(append([]string{root, name}, elem...)...)
}

// check runs the safety checks on dev, cheapest first, and returns the first
// that fails, or the resolved device path when all pass. byKName indexes all
// listed devices, to name children.
func (c *Checker) check(ctx context.Context, dev *Device, byKName map[string]*Device, mounts *mountIndex, force bool) (string, *Rejection) {
	reject := func(r Reason, format string, args ...any) *Rejection {
		return &Rejection{Path: dev.KName, Device: dev, Reason: r, Message: fmt.Sprintf(format, args...)}
	}
	// lsblk's own output is not trusted to name a path under /dev.
	kpath, err := ResolveDevicePath(c.FS, dev.KName)
	if err != nil {
		if errors.Is(err, ErrNotUnderDev) {
			return "", reject(NotUnderDev, "%v", err)
		}
		return "", reject(NotFound, "%v", err)
	}
	if dev.ReadOnly {
		return "", reject(ReadOnly, "device is read-only")
	}
	if strings.EqualFold(dev.State, "suspended") {
		return "", reject(Suspended, "device-mapper device is suspended")
	}
	if dev.MountPoint != "" {
		return "", reject(Mounted, "mounted at %s", dev.MountPoint)
	}
	majMin := ""
	if b, err := c.FS.ReadFile(c.sysPath(kpath, "dev")); err == nil {
		majMin = strings.TrimSpace(string(b))
	}
	if mp, ok := mounts.lookup(kpath, majMin); ok {
		return "", reject(Mounted, "mounted at %s (mountinfo)", mp)
	}
	if r := childReason(dev, byKName); r != nil {
		r.Path, r.Device = dev.KName, dev
		return "", r
	}
	holders, err := c.FS.ReadDir(c.sysPath(kpath, "holders"))
	switch {
	case err == nil && len(holders) > 0:
		names := make([]string, len(holders))
		for i, h := range holders {
			names[i] = h.Name()
		}
		sort.Strings(names)
		return "", reject(InUse, "held by %s", strings.Join(names, ", "))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", reject(CheckFailed, "reading holders: %v", err)
	}
	if dev.FSType != "" && !force {
		return "", reject(HasFilesystem, "lsblk reports FSTYPE=%s", dev.FSType)
	}
	if err := c.Opener.OpenExclusive(kpath); err != nil {
		if errors.Is(err, ErrBusy) {
			return "", reject(InUse, "%v", err)
		}
		return "", reject(CheckFailed, "%v", err)
	}
	if !force {
		sig, err := c.Prober.Probe(ctx, kpath)
		if err != nil {
			return "", reject(CheckFailed, "%v", err)
		}
		if sig.HasSignature() {
			return "", reject(HasFilesystem, "blkid finds %s", sig)
		}
	}
	return kpath, nil
}

// childReason refuses a device with anything built on it: partitions
// (HasPartitions) or device-mapper/RAID devices (InUse).
func childReason(dev *Device, byKName map[string]*Device) *Rejection {
	if len(dev.Children) == 0 {
		return nil
	}
	var parts, others []string
	for _, k := range dev.Children {
		typ := ""
		if ch, ok := byKName[k]; ok {
			typ = ch.Type
		}
		if typ == "part" {
			parts = append(parts, k)
		} else {
			others = append(others, fmt.Sprintf("%s (%s)", k, typ))
		}
	}
	if len(others) > 0 {
		return &Rejection{Reason: InUse, Message: "devices are built on it: " + strings.Join(others, ", ")}
	}
	return &Rejection{Reason: HasPartitions, Message: "has partitions " + strings.Join(parts, ", ")}
}
