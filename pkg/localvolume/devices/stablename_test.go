package devices

import (
	"errors"
	"testing"
)

func TestStableName(t *testing.T) {
	tr := newTree(t)
	for _, d := range []string{"sdb", "sdb1", "sdc", "sdd", "nvme0n1", "dm-0", "dm-1", "vda", "sde"} {
		tr.File("/dev/"+d, "")
	}
	byID := func(name, target string) { tr.Symlink("/dev/disk/by-id/"+name, target) }
	byID("wwn-0x5000c500a1b2c3d4", "../../sdb")
	byID("scsi-35000c500a1b2c3d4", "../../sdb")
	byID("ata-ST1000NM0045_ZBS0A1B2", "../../sdb")
	byID("wwn-0x5000c500a1b2c3d4-part1", "../../sdb1")
	byID("lvm-pv-uuid-Yx2k1c-Jd8P-3vQe", "../../sdc") // content only
	byID("scsi-SATA_disk_sdd", "/dev/sdd")            // absolute link
	byID("ata-ZZZ_sdd", "../../sdd")                  // ranks after scsi-
	byID("nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456A", "../../nvme0n1")
	byID("nvme-eui.002538b921a0c4f1", "../../nvme0n1")
	byID("dm-name-data-vol", "../../dm-0")
	byID("dm-uuid-LVM-q3XkT4vA9", "../../dm-0")
	byID("dm-name-mpatha", "../../dm-1")
	byID("dm-uuid-mpath-3600a098038304437415d4b6a59684a52", "../../dm-1")
	byID("usb-B_Stick", "../../sde")
	byID("usb-A_Stick", "../../sde")
	byID("wwn-dangling", "../../sdz")

	tests := []struct{ in, want string }{
		{"/dev/sdb", "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"/dev/disk/by-id/ata-ST1000NM0045_ZBS0A1B2", "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"},
		{"/dev/sdb1", "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4-part1"},
		{"/dev/sdc", "/dev/sdc"}, // lvm-pv-uuid- names content: skipped
		{"/dev/sdd", "/dev/disk/by-id/scsi-SATA_disk_sdd"},
		{"/dev/nvme0n1", "/dev/disk/by-id/nvme-eui.002538b921a0c4f1"},
		{"/dev/dm-0", "/dev/dm-0"}, // only dm-name-/dm-uuid-LVM-: skipped
		{"/dev/dm-1", "/dev/disk/by-id/dm-uuid-mpath-3600a098038304437415d4b6a59684a52"},
		{"/dev/sde", "/dev/disk/by-id/usb-A_Stick"}, // same rank: by name
		{"/dev/vda", "/dev/vda"},                    // no link at all
	}
	for _, tc := range tests {
		for i := 0; i < 3; i++ { // the same answer every time
			got, err := StableName(tr.fs, tc.in)
			if err != nil || got != tc.want {
				t.Errorf("StableName(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
				break
			}
		}
	}

	tr.File("/etc/passwd", "")
	tr.Symlink("/dev/disk/by-id/evil", "/etc/passwd")
	for _, bad := range []string{"/etc/passwd", "/dev/disk/by-id/evil", "sdb"} {
		if _, err := StableName(tr.fs, bad); !errors.Is(err, ErrNotUnderDev) {
			t.Errorf("StableName(%s): err = %v, want ErrNotUnderDev", bad, err)
		}
	}
}

func TestStableNameWithoutByID(t *testing.T) {
	tr := newTree(t)
	tr.File("/dev/vdb", "")
	got, err := StableName(tr.fs, "/dev/vdb")
	if err != nil || got != "/dev/vdb" {
		t.Errorf("got %q, %v", got, err)
	}
}
