package devices

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	lsRoot = "/mnt/local-storage"
	wwnB   = "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"
	wwnC   = "/dev/disk/by-id/wwn-0x5000c500deadbeef"
)

func symlinkTree(t *testing.T) *tree {
	tr := newTree(t)
	tr.File("/dev/sdb", "")
	tr.File("/dev/sdc", "")
	tr.Symlink(wwnB, "../../sdb")
	tr.Symlink(wwnC, "../../sdc")
	return tr
}

func TestEnsureSymlinkIdempotent(t *testing.T) {
	tr := symlinkTree(t)
	for i := 0; i < 2; i++ {
		if err := EnsureSymlink(tr.fs, lsRoot, "fast", "wwn-0x5000c500a1b2c3d4", wwnB); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	got, err := os.Readlink(tr.Path(lsRoot + "/fast/wwn-0x5000c500a1b2c3d4"))
	if err != nil || got != wwnB {
		t.Errorf("link -> %q, %v; want the by-id path as given", got, err)
	}
	p, err := SymlinkPath(lsRoot, "fast", "wwn-0x5000c500a1b2c3d4")
	if err != nil || p != "/mnt/local-storage/fast/wwn-0x5000c500a1b2c3d4" {
		t.Errorf("SymlinkPath = %q, %v", p, err)
	}
}

func TestEnsureSymlinkConflict(t *testing.T) {
	tr := symlinkTree(t)
	if err := EnsureSymlink(tr.fs, lsRoot, "fast", "disk1", wwnB); err != nil {
		t.Fatal(err)
	}
	err := EnsureSymlink(tr.fs, lsRoot, "fast", "disk1", wwnC)
	if !errors.Is(err, ErrSymlinkConflict) || !strings.Contains(err.Error(), wwnB) || !strings.Contains(err.Error(), wwnC) {
		t.Fatalf("err = %v, want ErrSymlinkConflict naming both targets", err)
	}
	if got, _ := os.Readlink(tr.Path(lsRoot + "/fast/disk1")); got != wwnB {
		t.Errorf("link replaced: -> %q", got)
	}
}

func TestEnsureSymlinkNeverReplacesOthers(t *testing.T) {
	tr := symlinkTree(t)
	tr.File(lsRoot+"/fast/file", "data")
	tr.Mkdir(lsRoot + "/fast/dir")
	for _, name := range []string{"file", "dir"} {
		if err := EnsureSymlink(tr.fs, lsRoot, "fast", name, wwnB); !errors.Is(err, ErrNotSymlink) {
			t.Errorf("%s: err = %v, want ErrNotSymlink", name, err)
		}
	}
	if b, _ := os.ReadFile(tr.Path(lsRoot + "/fast/file")); string(b) != "data" {
		t.Error("regular file changed")
	}
}

func TestEnsureSymlinkRefusals(t *testing.T) {
	tr := symlinkTree(t)
	tr.File("/etc/passwd", "root:x:0:0")
	tr.Symlink("/dev/disk/by-id/evil", "/etc/passwd")
	tests := []struct {
		name                   string
		root, sc, link, target string
		want                   error
	}{
		{"storage class with slash", lsRoot, "a/b", "x", wwnB, ErrInvalidName},
		{"storage class ..", lsRoot, "..", "x", wwnB, ErrInvalidName},
		{"storage class empty", lsRoot, "", "x", wwnB, ErrInvalidName},
		{"name with slash", lsRoot, "fast", "../../etc/x", wwnB, ErrInvalidName},
		{"name ..", lsRoot, "fast", "..", wwnB, ErrInvalidName},
		{"name containing ..", lsRoot, "fast", "a..b", wwnB, ErrInvalidName},
		{"name .", lsRoot, "fast", ".", wwnB, ErrInvalidName},
		{"relative root", "mnt/local-storage", "fast", "x", wwnB, ErrRootEscape},
		{"root /", "/", "fast", "x", wwnB, ErrRootEscape},
		{"unclean root", "/mnt/../etc", "fast", "x", wwnB, ErrRootEscape},
		{"target outside /dev", lsRoot, "fast", "x", "/etc/passwd", ErrNotUnderDev},
		{"target link out of /dev", lsRoot, "fast", "x", "/dev/disk/by-id/evil", ErrNotUnderDev},
		{"relative target", lsRoot, "fast", "x", "../../dev/sdb", ErrNotUnderDev},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := EnsureSymlink(tr.fs, tc.root, tc.sc, tc.link, tc.target); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if tr.Exists(lsRoot) {
		t.Error("a refused call created the root")
	}
	if err := EnsureSymlink(tr.fs, lsRoot, "fast", "x", "/dev/missing"); err == nil {
		t.Error("missing target accepted")
	}
}

// A storage class folder replaced by a symlink must not receive links.
func TestEnsureSymlinkFolderEscape(t *testing.T) {
	tr := symlinkTree(t)
	tr.Mkdir("/etc")
	tr.Symlink(lsRoot+"/fast", "/etc")
	tr.Symlink(lsRoot+"/dangling", "/etc/new-dir")
	tr.Mkdir(lsRoot + "/real")
	tr.Symlink(lsRoot+"/inside", lsRoot+"/real") // even inside the root: not its own folder
	for _, sc := range []string{"fast", "dangling", "inside"} {
		if err := EnsureSymlink(tr.fs, lsRoot, sc, "disk1", wwnB); !errors.Is(err, ErrRootEscape) {
			t.Errorf("%s: err = %v, want ErrRootEscape", sc, err)
		}
	}
	if tr.Exists("/etc/disk1") || tr.Exists("/etc/new-dir") || tr.Exists(lsRoot+"/real/disk1") {
		t.Error("something was created through an escaping folder")
	}
}

// The root itself may be a symlink (/mnt -> /var/mnt).
func TestEnsureSymlinkRootIsSymlink(t *testing.T) {
	tr := symlinkTree(t)
	tr.Symlink("/mnt", "/var/mnt")
	if err := EnsureSymlink(tr.fs, lsRoot, "fast", "disk1", wwnB); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.Readlink(tr.Path("/var/mnt/local-storage/fast/disk1")); got != wwnB {
		t.Errorf("link -> %q", got)
	}
}

func TestRemoveSymlink(t *testing.T) {
	tr := symlinkTree(t)
	if err := EnsureSymlink(tr.fs, lsRoot, "fast", "disk1", wwnB); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := RemoveSymlink(tr.fs, lsRoot, "fast", "disk1"); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if tr.Exists(lsRoot+"/fast/disk1") || !tr.Exists("/dev/sdb") {
		t.Error("wrong thing removed")
	}
	// No folder, no root: nothing to do.
	if err := RemoveSymlink(tr.fs, lsRoot, "never-created", "disk1"); err != nil {
		t.Error(err)
	}
	if err := RemoveSymlink(tr.fs, "/nonexistent-root", "fast", "disk1"); err != nil {
		t.Error(err)
	}
}

func TestRemoveSymlinkOnlyRemovesSymlinks(t *testing.T) {
	tr := symlinkTree(t)
	tr.File(lsRoot+"/fast/file", "data")
	tr.Mkdir(lsRoot + "/fast/dir")
	for _, name := range []string{"file", "dir"} {
		if err := RemoveSymlink(tr.fs, lsRoot, "fast", name); !errors.Is(err, ErrNotSymlink) {
			t.Errorf("%s: err = %v, want ErrNotSymlink", name, err)
		}
		if !tr.Exists(lsRoot + "/fast/" + name) {
			t.Errorf("%s removed", name)
		}
	}
	// A dangling symlink is still a symlink.
	tr.Symlink(lsRoot+"/fast/gone", "/dev/disk/by-id/wwn-gone")
	if err := RemoveSymlink(tr.fs, lsRoot, "fast", "gone"); err != nil || tr.Exists(lsRoot+"/fast/gone") {
		t.Errorf("dangling: %v", err)
	}
}

func TestRemoveSymlinkRefusals(t *testing.T) {
	tr := symlinkTree(t)
	tr.Symlink("/etc/disk1", "/dev/sdb") // a symlink outside the root
	tr.Symlink(lsRoot+"/fast", "/etc")
	if err := RemoveSymlink(tr.fs, lsRoot, "fast", "disk1"); !errors.Is(err, ErrRootEscape) {
		t.Errorf("err = %v, want ErrRootEscape", err)
	}
	if !tr.Exists("/etc/disk1") {
		t.Error("removed a link outside the root")
	}
	for _, tc := range []struct{ sc, name string }{{"..", "disk1"}, {"fast", "../x"}, {"a/b", "x"}, {"fast", ""}} {
		if err := RemoveSymlink(tr.fs, lsRoot, tc.sc, tc.name); !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q/%q: err = %v", tc.sc, tc.name, err)
		}
	}
	if err := RemoveSymlink(tr.fs, "relative", "fast", "x"); !errors.Is(err, ErrRootEscape) {
		t.Errorf("relative root: %v", err)
	}
}

// OSFS end to end on a temporary root; /dev/null is the one device node a
// test may name without touching a disk.
func TestSymlinkOSFS(t *testing.T) {
	root := filepath.Join(t.TempDir(), "local-storage")
	if err := EnsureSymlink(OSFS{}, root, "sc", "null", "/dev/null"); err != nil {
		t.Fatal(err)
	}
	if err := EnsureSymlink(OSFS{}, root, "sc", "null", "/dev/null"); err != nil {
		t.Fatal(err)
	}
	if err := EnsureSymlink(OSFS{}, root, "sc", "null", "/dev/zero"); !errors.Is(err, ErrSymlinkConflict) {
		t.Errorf("conflict: %v", err)
	}
	if err := RemoveSymlink(OSFS{}, root, "sc", "null"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "sc", "null")); !os.IsNotExist(err) {
		t.Errorf("link still there: %v", err)
	}
}
