package hosttree

import (
	"os"
	"testing"
)

func TestTreeKeepsTheHostsPathsUnderItsRoot(t *testing.T) {
	tr := New(t)
	tr.BlockDevice("/dev/sdb", "8:16")
	tr.Symlink("/dev/disk/by-id/wwn-1", "../../sdb")
	tr.Mountinfo("22 1 0:21 / / rw - overlay overlay rw")

	for _, p := range []string{"/dev/sdb", "/sys/class/block/sdb/holders", "/dev/disk/by-id/wwn-1"} {
		if !tr.Exists(p) {
			t.Errorf("%s does not exist", p)
		}
	}
	if tr.Exists("/dev/sdc") {
		t.Error("/dev/sdc exists")
	}
	if got := tr.Readlink("/dev/disk/by-id/wwn-1"); got != "../../sdb" {
		t.Errorf("link target %q", got)
	}
	if got := tr.Readlink("/dev/sdb"); got != "" {
		t.Errorf("a device node reads as a link to %q", got)
	}
	for p, want := range map[string]string{
		"/sys/class/block/sdb/dev": "8:16\n",
		"/proc/self/mountinfo":     "22 1 0:21 / / rw - overlay overlay rw\n",
	} {
		if b, err := os.ReadFile(tr.Path(p)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", p, b, err, want)
		}
	}
}
