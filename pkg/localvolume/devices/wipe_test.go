package devices

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func wipeTree(t *testing.T) *tree {
	tr := newTree(t)
	tr.File("/dev/sdb", "")
	tr.Symlink(wwnB, "../../sdb")
	tr.File("/etc/passwd", "")
	tr.Symlink("/dev/disk/by-id/evil", "/etc/passwd")
	return tr
}

func TestWipefsCommandLine(t *testing.T) {
	tr := wipeTree(t)
	r := newFakeRunner().on("wipefs --all --force /dev/sdb", "/dev/sdb: 4 bytes were erased at offset 0x00000438 (ext4): 53 ef\n", nil)
	w := WipefsWiper{Runner: r, FS: tr.fs}
	if err := w.Wipe(context.Background(), wwnB); err != nil {
		t.Fatal(err)
	}
	// The by-id alias is resolved: the command names the node wiped.
	if got := r.Calls(); !reflect.DeepEqual(got, []string{"wipefs --all --force /dev/sdb"}) {
		t.Errorf("calls = %q", got)
	}
}

func TestWipefsVerify(t *testing.T) {
	ctx := context.Background()
	tr := wipeTree(t)

	// blkid finds nothing afterwards (exit 2): success.
	r := newFakeRunner().on("wipefs --all --force /dev/sdb", "", nil)
	w := WipefsWiper{Runner: r, FS: tr.fs, Verify: BlkidProber{Runner: r}}
	if err := w.Wipe(ctx, "/dev/sdb"); err != nil {
		t.Fatal(err)
	}
	want := []string{"wipefs --all --force /dev/sdb", "blkid -p -o export /dev/sdb"}
	if got := r.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %q, want %q", got, want)
	}

	// A signature wipefs does not know survives: an error.
	r = newFakeRunner().
		on("wipefs --all --force /dev/sdb", "", nil).
		on("blkid -p -o export /dev/sdb", "DEVNAME=/dev/sdb\nTYPE=zfs_member\nUSAGE=filesystem\n", nil)
	w = WipefsWiper{Runner: r, FS: tr.fs, Verify: BlkidProber{Runner: r}}
	if err := w.Wipe(ctx, "/dev/sdb"); !errors.Is(err, ErrSignatureRemains) || !strings.Contains(err.Error(), "zfs_member") {
		t.Errorf("err = %v, want ErrSignatureRemains naming the type", err)
	}

	// blkid failing after the wipe is an error too.
	r = newFakeRunner().
		on("wipefs --all --force /dev/sdb", "", nil).
		on("blkid -p -o export /dev/sdb", "", exitErr("blkid", 4, "usage"))
	w = WipefsWiper{Runner: r, FS: tr.fs, Verify: BlkidProber{Runner: r}}
	if err := w.Wipe(ctx, "/dev/sdb"); err == nil {
		t.Error("probe failure swallowed")
	}
}

func TestWipefsFailures(t *testing.T) {
	ctx := context.Background()
	tr := wipeTree(t)
	r := newFakeRunner().on("wipefs --all --force /dev/sdb", "", exitErr("wipefs", 1, "wipefs: error: /dev/sdb: probing initialization failed: Device or resource busy"))
	w := WipefsWiper{Runner: r, FS: tr.fs, Verify: BlkidProber{Runner: r}}
	err := w.Wipe(ctx, "/dev/sdb")
	if err == nil || !strings.Contains(err.Error(), "Device or resource busy") {
		t.Errorf("err = %v, want wipefs's stderr", err)
	}
	if n := len(r.Calls()); n != 1 {
		t.Errorf("%d commands after a failed wipe, want no verification", n)
	}

	// Paths that do not resolve under /dev never reach wipefs.
	r = newFakeRunner()
	w = WipefsWiper{Runner: r, FS: tr.fs}
	for _, p := range []string{"/etc/passwd", "/dev/disk/by-id/evil", "sdb", "/dev/../etc/passwd"} {
		if err := w.Wipe(ctx, p); !errors.Is(err, ErrNotUnderDev) {
			t.Errorf("%s: err = %v, want ErrNotUnderDev", p, err)
		}
	}
	if err := w.Wipe(ctx, "/dev/missing"); err == nil {
		t.Error("missing device accepted")
	}
	if calls := r.Calls(); len(calls) != 0 {
		t.Errorf("commands run: %q", calls)
	}
}
