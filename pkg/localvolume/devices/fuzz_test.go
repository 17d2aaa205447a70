package devices

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Whatever lsblk prints, parsing answers without panicking and lists each
// device once.
func FuzzParseLsblk(f *testing.F) {
	for _, sample := range []string{"vm-virtio.json", "nvme.json", "device-mapper.json", "loop.json", "old-util-linux-2.32.json"} {
		f.Add(readSample(f, "lsblk/"+sample))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		devs, err := ParseLsblk(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, d := range devs {
			if seen[d.KName] {
				t.Fatalf("device %q listed twice", d.KName)
			}
			seen[d.KName] = true
		}
	})
}

// Whatever blkid and /proc/self/mountinfo hold, parsing answers without
// panicking.
func FuzzParseBlkidExport(f *testing.F) {
	for _, sample := range []string{"ext4-partition.txt", "gpt-disk.txt", "lvm-member.txt", "swap.txt"} {
		f.Add(readSample(f, "blkid/"+sample))
	}
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = ParseBlkidExport(data) })
}

func FuzzParseMountInfo(f *testing.F) {
	f.Add([]byte("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"))
	f.Add([]byte("22 1 253:1 / / rw - xfs /dev/mapper/vg-root rw\n24 22 0:5 / /dev rw - devtmpfs devtmpfs rw\n"))
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = ParseMountInfo(data) })
}

// A local PV's symlink path, from a StorageClass name and a device name
// that API objects give, never leaves the symlink root.
func FuzzSymlinkPath(f *testing.F) {
	f.Add("/mnt/local-storage", "fast", "nvme-SAMSUNG_1")
	f.Add("/mnt/local-storage", "..", "x")
	f.Add("/mnt/local-storage", "a/../../etc", "passwd")
	f.Fuzz(func(t *testing.T, root, class, name string) {
		p, err := SymlinkPath(root, class, name)
		if err != nil {
			return
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(rel, "..") || len(strings.Split(rel, string(filepath.Separator))) != 2 {
			t.Fatalf("SymlinkPath(%q, %q, %q) = %q, not two levels under the root", root, class, name, p)
		}
	})
}

// A LocalVolume's devicePaths, whatever they say, select only devices
// under /dev that lsblk listed, with at most one outcome per path.
func FuzzSelectByPaths(f *testing.F) {
	devs, err := ParseLsblk(readSample(f, "lsblk/vm-virtio.json"))
	if err != nil {
		f.Fatal(err)
	}
	tr := newTree(f)
	tr.devices(devs)
	tr.Symlink("/dev/disk/by-id/virtio-data", "../../vdb")
	tr.Symlink("/dev/disk/by-id/escape", "../../../etc/passwd")
	tr.File("/etc/passwd", "root:x:0:0")
	checker := tr.checker(newFakeRunner(), nil)
	listed := map[string]bool{}
	for _, d := range devs {
		listed[d.Path] = true
	}
	f.Add("/dev/vdb", false)
	f.Add("/dev/disk/by-id/virtio-data\n/dev/vdb", true)
	f.Add("/dev/disk/by-id/escape\n/dev/../etc/passwd\nrelative/vdb", true)
	f.Fuzz(func(t *testing.T, paths string, force bool) {
		requested := strings.Split(paths, "\n")
		sel, err := checker.Select(context.Background(), devs, Request{Paths: requested, Force: force})
		if err != nil {
			return
		}
		for _, s := range sel.Selected {
			if !isUnderDev(s.Device.Path) || !listed[s.Device.Path] {
				t.Fatalf("selected %q for %q: not a listed device under /dev", s.Device.Path, s.RequestedPath)
			}
		}
		if got := len(sel.Selected) + len(sel.Rejected); got > len(requested) {
			t.Fatalf("%d outcomes for %d requested paths", got, len(requested))
		}
	})
}

// A LocalVolumeSet's filter, whatever it says, selects only devices it
// matches, at most MaxCount of them, and gives every device one outcome.
func FuzzSelectByFilter(f *testing.F) {
	devs, err := ParseLsblk(readSample(f, "lsblk/vm-virtio.json"))
	if err != nil {
		f.Fatal(err)
	}
	tr := newTree(f)
	tr.devices(devs)
	checker := tr.checker(newFakeRunner(), nil)
	f.Add("disk", int64(0), int64(0), "", "", 0, uint8(0))
	f.Add("part,DISK", int64(1<<30), int64(1<<40), "QEMU", "", 1, uint8(1))
	f.Add("", int64(-1), int64(-5), "", "x", -3, uint8(2))
	f.Fuzz(func(t *testing.T, types string, minSize, maxSize int64, models, vendors string, maxCount int, rotational uint8) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		filter := Filter{DeviceTypes: split(types), Models: split(models), Vendors: split(vendors), MaxCount: maxCount}
		if minSize != 0 {
			filter.MinSize = &minSize
		}
		if maxSize != 0 {
			filter.MaxSize = &maxSize
		}
		if rotational%3 < 2 {
			filter.Rotational = ptr(rotational%3 == 1)
		}
		sel, err := checker.Select(context.Background(), devs, Request{Filter: &filter})
		if err != nil {
			return
		}
		if got := len(sel.Selected) + len(sel.Rejected); got != len(devs) {
			t.Fatalf("%d outcomes for %d devices", got, len(devs))
		}
		if maxCount > 0 && len(sel.Selected) > maxCount {
			t.Fatalf("%d selected, MaxCount %d", len(sel.Selected), maxCount)
		}
		for _, s := range sel.Selected {
			if reason, msg := filter.match(&s.Device); reason != "" {
				t.Fatalf("selected %s, which the filter refuses: %s", s.Device.KName, msg)
			}
		}
	})
}
