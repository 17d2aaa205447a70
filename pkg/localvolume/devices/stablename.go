package devices

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ByIDDir holds udev's links named after a device's identity.
const ByIDDir = "/dev/disk/by-id"

// contentIDPrefixes name by-id links that describe what is written on a
// device or a mapping someone set up, not the device: they vanish or move
// when the device is wiped or the mapping is re-created, so a PV must never
// point at them.
var contentIDPrefixes = []string{
	"dm-name-",     // device-mapper name chosen by its creator (vg-lv, mpatha)
	"dm-uuid-",     // device-mapper UUID: LVM-..., CRYPT-... (mpath- is let through below)
	"lvm-pv-uuid-", // LVM label written on the device
	"md-name-",     // RAID superblock
	"md-uuid-",     // RAID superblock
}

// idRank orders candidate by-id names: lower is preferred. wwn- is the
// identity the storage itself reports (SCSI/ATA WWN); then the other
// hardware identities; then anything else udev made; multipath map UUIDs
// (dm-uuid-mpath-<wwid>, which carry the LUN's WWID) last. Ties break on the
// name, so the choice is the same on every run.
func idRank(name string) int {
	switch {
	case strings.HasPrefix(name, "wwn-"):
		return 0
	case strings.HasPrefix(name, "nvme-eui."), strings.HasPrefix(name, "nvme-uuid."):
		return 1
	case strings.HasPrefix(name, "nvme-"):
		return 2
	case strings.HasPrefix(name, "scsi-"):
		return 3
	case strings.HasPrefix(name, "ata-"):
		return 4
	case strings.HasPrefix(name, "virtio-"):
		return 5
	case strings.HasPrefix(name, "dm-uuid-mpath-"):
		return 7
	}
	for _, p := range contentIDPrefixes {
		if strings.HasPrefix(name, p) {
			return -1 // never
		}
	}
	return 6
}

// StableName returns the /dev/disk/by-id link that resolves to the same
// device as devPath, preferring wwn- and then other hardware identities in a
// fixed order (see idRank) and never one that names content (dm-uuid-LVM-...,
// lvm-pv-uuid-..., md-uuid-...). When no link fits it returns the resolved
// device path itself. devPath must resolve under /dev (ErrNotUnderDev).
func StableName(fsys FS, devPath string) (string, error) {
	target, err := ResolveDevicePath(fsys, devPath)
	if err != nil {
		return "", err
	}
	idx, err := newByIDIndex(fsys)
	if err != nil {
		return "", err
	}
	return idx.name(target), nil
}

// byIDIndex maps a resolved device path to its preferred by-id link. Select
// builds it once rather than rescanning by-id for every device.
type byIDIndex map[string]string

func newByIDIndex(fsys FS) (byIDIndex, error) {
	idx := byIDIndex{}
	entries, err := fsys.ReadDir(ByIDDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// No udev links at all (a container without udev, a VM
			// disk without serial): device paths are all there is.
			return idx, nil
		}
		return nil, fmt.Errorf("reading %s: %w", ByIDDir, err)
	}
	for _, e := range entries {
		name := e.Name()
		rank := idRank(name)
		if rank < 0 {
			continue
		}
		link := filepath.Join(ByIDDir, name)
		target, err := fsys.EvalSymlinks(link)
		if err != nil || !isUnderDev(target) {
			continue // dangling links are common while udev settles
		}
		if cur, ok := idx[target]; ok {
			cr := idRank(filepath.Base(cur))
			if cr < rank || (cr == rank && filepath.Base(cur) < name) {
				continue
			}
		}
		idx[target] = link
	}
	return idx, nil
}

// name returns the preferred link for the resolved device path target, or
// target itself.
func (idx byIDIndex) name(target string) string {
	if link, ok := idx[target]; ok {
		return link
	}
	return target
}
