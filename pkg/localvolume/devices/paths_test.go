package devices

import (
	"errors"
	"testing"
)

func TestResolveDevicePath(t *testing.T) {
	tr := newTree(t)
	tr.File("/dev/sdb", "")
	tr.File("/etc/shadow", "")
	tr.Symlink("/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", "../../sdb")
	tr.Symlink("/dev/disk/by-id/evil", "/etc/shadow")
	tr.Symlink("/dev/disk/by-id/evil-rel", "../../../etc/shadow")
	tr.Symlink("/dev/disk/by-id/up", "../..")
	tr.Symlink("/var/lib/mydisk", "/dev/sdb")

	tests := []struct {
		path, want string
		notUnder   bool // error wraps ErrNotUnderDev
		err        bool // any other error
	}{
		{path: "/dev/sdb", want: "/dev/sdb"},
		{path: "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", want: "/dev/sdb"},
		{path: "/var/lib/mydisk", want: "/dev/sdb"}, // outside /dev, but resolves into it
		{path: "/dev/disk/by-id/evil", notUnder: true},
		{path: "/dev/disk/by-id/evil-rel", notUnder: true},
		{path: "/dev/disk/by-id/up", notUnder: true}, // /dev itself is not a device
		{path: "/dev/../etc/shadow", notUnder: true},
		{path: "/dev/disk/by-id/../../sdb", notUnder: true}, // ".." refused even when harmless
		{path: "dev/sdb", notUnder: true},
		{path: "../dev/sdb", notUnder: true},
		{path: "/etc/shadow", notUnder: true},
		{path: "/dev/missing", err: true},
	}
	for _, tc := range tests {
		got, err := ResolveDevicePath(tr.fs, tc.path)
		switch {
		case tc.notUnder:
			if !errors.Is(err, ErrNotUnderDev) {
				t.Errorf("%s: got %q, %v; want ErrNotUnderDev", tc.path, got, err)
			}
		case tc.err:
			if err == nil || errors.Is(err, ErrNotUnderDev) {
				t.Errorf("%s: got %q, %v; want a plain error", tc.path, got, err)
			}
		default:
			if err != nil || got != tc.want {
				t.Errorf("%s: got %q, %v; want %q", tc.path, got, err, tc.want)
			}
		}
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"fast-ssd", "wwn-0x5000c500a1b2c3d4", "nvme-eui.0025388b91b0c4f1", "a.b", "local_sc"} {
		if err := ValidateName("name", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "/abs", "../x", "x/..", "a..b", "nul\x00"} {
		if err := ValidateName("name", bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q: err = %v, want ErrInvalidName", bad, err)
		}
	}
}
