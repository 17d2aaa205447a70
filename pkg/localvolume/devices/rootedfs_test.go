package devices

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRootedFSResolution(t *testing.T) {
	tr := newTree(t)
	tr.File("/dev/sdb", "")
	tr.Symlink("/dev/disk/by-id/wwn-abs", "/dev/sdb")                   // absolute: resolved under the root
	tr.Symlink("/dev/disk/by-id/wwn-rel", "../../sdb")                  // relative, as udev makes them
	tr.Symlink("/dev/disk/by-id/climb", "../../../../../../../dev/sdb") // ".." clamps at the root
	tr.Symlink("/dev/disk/by-id/chain", "wwn-abs")
	tr.Symlink("/dev/loop-a", "/dev/loop-b")
	tr.Symlink("/dev/loop-b", "/dev/loop-a")
	tr.Symlink("/sys/class/block/sdb", "../../devices/pci0000:00/block/sdb")
	tr.File("/sys/devices/pci0000:00/block/sdb/dev", "8:16\n")
	tr.File("/etc/hostname", "host\n")

	for _, p := range []string{"/dev/sdb", "/dev/disk/by-id/wwn-abs", "/dev/disk/by-id/wwn-rel", "/dev/disk/by-id/climb", "/dev/disk/by-id/chain", "/dev/disk/../sdb"} {
		got, err := tr.fs.EvalSymlinks(p)
		if err != nil || got != "/dev/sdb" {
			t.Errorf("EvalSymlinks(%s) = %q, %v", p, got, err)
		}
	}
	if _, err := tr.fs.EvalSymlinks("/dev/loop-a"); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("loop: err = %v", err)
	}
	_, err := tr.fs.EvalSymlinks("/dev/missing")
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != "/dev/missing" {
		t.Errorf("missing: err = %v, want ErrNotExist naming the virtual path", err)
	}
	if _, err := tr.fs.EvalSymlinks("/dev/sdb/x"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("through a file: err = %v", err)
	}
	if _, err := tr.fs.EvalSymlinks("dev/sdb"); err == nil {
		t.Error("relative path accepted")
	}

	// Reads follow symlinked directories inside the root.
	b, err := tr.fs.ReadFile("/sys/class/block/sdb/dev")
	if err != nil || string(b) != "8:16\n" {
		t.Errorf("ReadFile through a link: %q, %v", b, err)
	}
	es, err := tr.fs.ReadDir("/dev/disk/by-id")
	if err != nil || len(es) != 4 {
		t.Errorf("ReadDir: %d entries, %v", len(es), err)
	}
	// Lstat does not follow the last component.
	fi, err := tr.fs.Lstat("/dev/disk/by-id/wwn-abs")
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat: %v, %v", fi, err)
	}
	if got, err := tr.fs.Readlink("/dev/disk/by-id/wwn-abs"); err != nil || got != "/dev/sdb" {
		t.Errorf("Readlink = %q, %v", got, err)
	}
}

func TestRootedFSWrites(t *testing.T) {
	tr := newTree(t)
	tr.File("/dev/sdb", "")
	tr.Symlink("/mnt", "/var/mnt") // as on some distributions
	if err := tr.fs.MkdirAll("/mnt/local-storage/fast", 0o755); err != nil {
		t.Fatal(err)
	}
	if !tr.Exists("/var/mnt/local-storage/fast") {
		t.Fatal("MkdirAll did not follow /mnt -> /var/mnt inside the root")
	}
	if err := tr.fs.Symlink("/dev/sdb", "/mnt/local-storage/fast/a"); err != nil {
		t.Fatal(err)
	}
	got, err := os.Readlink(tr.Path("/var/mnt/local-storage/fast/a"))
	if err != nil || got != "/dev/sdb" {
		t.Errorf("stored target = %q, %v", got, err)
	}
	if r, err := tr.fs.EvalSymlinks("/mnt/local-storage/fast/a"); err != nil || r != "/dev/sdb" {
		t.Errorf("EvalSymlinks = %q, %v", r, err)
	}
	if err := tr.fs.Symlink("/dev/sdb", "/mnt/local-storage/fast/a"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Symlink: %v", err)
	}
	if err := tr.fs.Remove("/mnt/local-storage/fast/a"); err != nil {
		t.Fatal(err)
	}
	if !tr.Exists("/dev/sdb") || tr.Exists("/var/mnt/local-storage/fast/a") {
		t.Error("Remove removed the wrong thing")
	}
	if err := tr.fs.Remove("/mnt/local-storage/fast/a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second Remove: %v", err)
	}
	// Nothing escapes the root, even through an absolute link to "/".
	tr.Symlink("/escape", "/")
	if err := tr.fs.MkdirAll("/escape/made-here", 0o755); err != nil {
		t.Fatal(err)
	}
	if !tr.Exists("/made-here") {
		t.Error("MkdirAll through a link to / left the root")
	}
	if _, err := os.Stat(filepath.Join(string(filepath.Separator), "made-here")); err == nil {
		t.Error("created /made-here on the host")
	}
}
