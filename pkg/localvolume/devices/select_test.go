package devices

import (
	"context"
	"reflect"
	"testing"
)

// selectSample runs Select over an lsblk sample on a clean fake node: every
// listed device has a node, nothing is mounted beyond what lsblk says, blkid
// finds nothing, O_EXCL opens succeed.
func selectSample(t *testing.T, sample string, f Filter) map[string]Reason {
	t.Helper()
	devs, err := ParseLsblk(readSample(t, "lsblk/"+sample))
	if err != nil {
		t.Fatal(err)
	}
	tr := newTree(t)
	tr.devices(devs)
	sel, err := tr.checker(newFakeRunner(), nil).Select(context.Background(), devs, Request{Filter: &f})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sel.Selected) + len(sel.Rejected); n != len(devs) {
		t.Errorf("%d outcomes for %d devices", n, len(devs))
	}
	return outcome(sel)
}

func TestSelectFilter(t *testing.T) {
	tests := []struct {
		name   string
		sample string
		filter Filter
		want   map[string]Reason
	}{
		{
			name: "default types are disks only", sample: "vm-virtio.json",
			want: map[string]Reason{
				"/dev/sr0": WrongType, "/dev/vda": HasPartitions, "/dev/vda1": WrongType, "/dev/vda2": WrongType,
				"/dev/vda3": WrongType, "/dev/vdb": "", "/dev/vdc": HasPartitions, "/dev/vdc1": WrongType, "/dev/vdc2": WrongType,
			},
		},
		{
			name: "partitions, at least 1GiB", sample: "vm-virtio.json",
			filter: Filter{DeviceTypes: []string{"part"}, MinSize: ptr[int64](1 << 30)},
			want: map[string]Reason{
				"/dev/sr0": WrongType, "/dev/vda": WrongType, "/dev/vda1": TooSmall, "/dev/vda2": TooSmall,
				"/dev/vda3": Mounted, "/dev/vdb": WrongType, "/dev/vdc": WrongType, "/dev/vdc1": "", "/dev/vdc2": HasFilesystem,
			},
		},
		{
			name: "types are case-insensitive; removable refused", sample: "vm-virtio.json",
			filter: Filter{DeviceTypes: []string{"ROM", "Disk"}},
			want: map[string]Reason{
				"/dev/sr0": Removable, "/dev/vda": HasPartitions, "/dev/vda1": WrongType, "/dev/vda2": WrongType,
				"/dev/vda3": WrongType, "/dev/vdb": "", "/dev/vdc": HasPartitions, "/dev/vdc1": WrongType, "/dev/vdc2": WrongType,
			},
		},
		{
			name: "non-rotational only", sample: "vm-virtio.json",
			filter: Filter{Rotational: ptr(false)},
			want: map[string]Reason{
				"/dev/sr0": WrongType, "/dev/vda": WrongRotational, "/dev/vda1": WrongType, "/dev/vda2": WrongType,
				"/dev/vda3": WrongType, "/dev/vdb": WrongRotational, "/dev/vdc": WrongRotational, "/dev/vdc1": WrongType, "/dev/vdc2": WrongType,
			},
		},
		{
			name: "model substring", sample: "nvme.json",
			filter: Filter{Models: []string{"980 PRO", "Micron"}},
			want:   map[string]Reason{"/dev/nvme0n1": "", "/dev/nvme1n1": WrongModel, "/dev/nvme1n1p1": WrongType, "/dev/nvme1n1p2": WrongType},
		},
		{
			name: "model match is case-sensitive", sample: "nvme.json",
			filter: Filter{Models: []string{"samsung"}},
			want:   map[string]Reason{"/dev/nvme0n1": WrongModel, "/dev/nvme1n1": WrongModel, "/dev/nvme1n1p1": WrongType, "/dev/nvme1n1p2": WrongType},
		},
		{
			name: "vendor", sample: "nvme.json",
			filter: Filter{Vendors: []string{"Dell"}},
			want:   map[string]Reason{"/dev/nvme0n1": WrongVendor, "/dev/nvme1n1": WrongVendor, "/dev/nvme1n1p1": WrongType, "/dev/nvme1n1p2": WrongType},
		},
		{
			name: "max size; filter reasons come before safety", sample: "nvme.json",
			filter: Filter{MaxSize: ptr[int64](2_000_000_000_000), Rotational: ptr(false)},
			want:   map[string]Reason{"/dev/nvme0n1": "", "/dev/nvme1n1": TooLarge, "/dev/nvme1n1p1": WrongType, "/dev/nvme1n1p2": WrongType},
		},
		{
			name: "partitions of an NVMe disk", sample: "nvme.json",
			filter: Filter{DeviceTypes: []string{"part"}, MinSize: ptr[int64](1_920_377_991_168)},
			want:   map[string]Reason{"/dev/nvme0n1": WrongType, "/dev/nvme1n1": WrongType, "/dev/nvme1n1p1": "", "/dev/nvme1n1p2": TooSmall},
		},
		{
			name: "loop devices", sample: "loop.json",
			filter: Filter{DeviceTypes: []string{"loop"}, MinSize: ptr[int64](1)},
			want:   map[string]Reason{"/dev/loop0": ReadOnly, "/dev/loop1": "", "/dev/loop7": TooSmall},
		},
		{
			name: "device-mapper", sample: "device-mapper.json",
			filter: Filter{DeviceTypes: []string{"disk", "lvm", "mpath", "crypt"}},
			want: map[string]Reason{
				"/dev/sda": HasPartitions, "/dev/sda1": WrongType, "/dev/sdb": InUse, "/dev/sdc": InUse, "/dev/dm-0": Mounted,
				"/dev/sdd": InUse, "/dev/sde": InUse, "/dev/dm-1": "", "/dev/sdf": InUse, "/dev/dm-2": Suspended,
			},
		},
		{
			name: "old util-linux", sample: "old-util-linux-2.32.json",
			want: map[string]Reason{"/dev/sda": HasPartitions, "/dev/sda1": WrongType, "/dev/sda2": WrongType, "/dev/sdb": "", "/dev/sdc": Removable},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := selectSample(t, tc.sample, tc.filter); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

// MaxCount keeps the devices with the smallest stable names, so the same
// disks win after a reboot renames sdb..sde.
func TestSelectMaxCount(t *testing.T) {
	tr := newTree(t)
	var devs []Device
	for i, k := range []string{"/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"} {
		devs = append(devs, disk(k))
		tr.BlockDevice(k, "8:"+string(rune('1'+i)))
		tr.Symlink("/dev/disk/by-id/wwn-0x"+string(rune('4'-i)), "../../"+k[len("/dev/"):])
	}
	sel, err := tr.checker(newFakeRunner(), nil).Select(context.Background(), devs, Request{Filter: &Filter{MaxCount: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sel.Selected {
		names = append(names, s.Device.KName+"="+s.StableName)
	}
	want := []string{"/dev/sde=/dev/disk/by-id/wwn-0x1", "/dev/sdd=/dev/disk/by-id/wwn-0x2"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("selected %v, want %v", names, want)
	}
	if got := outcome(sel); got["/dev/sdb"] != MaxCountReached || got["/dev/sdc"] != MaxCountReached {
		t.Errorf("rejected %v", sel.Rejected)
	}
	// No cap.
	sel, _ = tr.checker(newFakeRunner(), nil).Select(context.Background(), devs, Request{Filter: &Filter{}})
	if len(sel.Selected) != 4 {
		t.Errorf("MaxCount 0 selected %d", len(sel.Selected))
	}
}
