package devices

import (
	"reflect"
	"testing"
)

const sampleMountInfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334460k,nr_inodes=3083615,mode=755
27 1 252:3 / / rw,relatime shared:1 - xfs /dev/vda3 rw,attr2,inode64
30 27 252:2 / /boot/efi rw,relatime shared:5 master:2 - vfat /dev/vda2 rw,fmask=0077
41 27 0:45 / /var/lib/my\040data rw,relatime - btrfs /dev/mapper/data rw,space_cache=v2
52 27 0:6 /sdx /var/lib/kubelet/plugins/kubernetes.io~local-volume/volumeDevices/pv1/pod1 rw - devtmpfs udev rw
`

func TestParseMountInfo(t *testing.T) {
	got, err := ParseMountInfo([]byte(sampleMountInfo))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mount{
		{MajorMinor: "0:21", Root: "/", MountPoint: "/proc", FSType: "proc", Source: "proc"},
		{MajorMinor: "0:6", Root: "/", MountPoint: "/dev", FSType: "devtmpfs", Source: "devtmpfs"},
		{MajorMinor: "252:3", Root: "/", MountPoint: "/", FSType: "xfs", Source: "/dev/vda3"},
		{MajorMinor: "252:2", Root: "/", MountPoint: "/boot/efi", FSType: "vfat", Source: "/dev/vda2"},
		{MajorMinor: "0:45", Root: "/", MountPoint: "/var/lib/my data", FSType: "btrfs", Source: "/dev/mapper/data"},
		{MajorMinor: "0:6", Root: "/sdx", MountPoint: "/var/lib/kubelet/plugins/kubernetes.io~local-volume/volumeDevices/pv1/pod1", FSType: "devtmpfs", Source: "udev"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"1 2 3", "1 2 8:0 / /mnt rw shared:1 xfs /dev/sda rw", "1 2 8:0 / /mnt rw - xfs"} {
		if _, err := ParseMountInfo([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestMountIndex(t *testing.T) {
	tr := newTree(t)
	tr.BlockDevice("/dev/vda2", "252:2")
	tr.BlockDevice("/dev/vda3", "252:3")
	tr.BlockDevice("/dev/dm-0", "253:0")
	tr.Symlink("/dev/mapper/data", "../dm-0")
	tr.BlockDevice("/dev/sdx", "8:16")
	mounts, err := ParseMountInfo([]byte(sampleMountInfo))
	if err != nil {
		t.Fatal(err)
	}
	idx := newMountIndex(tr.fs, mounts)
	tests := []struct {
		kname, majMin, want string
	}{
		{"/dev/vda3", "", "/"},                     // by source path
		{"/dev/elsewhere", "252:2", "/boot/efi"},   // by device number
		{"/dev/dm-0", "253:0", "/var/lib/my data"}, // source resolved from /dev/mapper; btrfs has major 0
		{"/dev/sdx", "8:16", "/var/lib/kubelet/plugins/kubernetes.io~local-volume/volumeDevices/pv1/pod1"}, // bind of the node
		{"/dev/sdy", "8:32", ""},
		{"/dev/sdz", "0:6", ""}, // anonymous devices never match
	}
	for _, tc := range tests {
		mp, ok := idx.lookup(tc.kname, tc.majMin)
		if mp != tc.want || ok != (tc.want != "") {
			t.Errorf("lookup(%s, %s) = %q, %v; want %q", tc.kname, tc.majMin, mp, ok, tc.want)
		}
	}
}
