//go:build linux

package devices

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The real opener is only exercised on paths that are not block devices:
// tests never open a disk.
func TestOSExclusiveOpener(t *testing.T) {
	f := filepath.Join(t.TempDir(), "not-a-disk")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (OSExclusiveOpener{}).OpenExclusive(f); !errors.Is(err, ErrNotBlockDevice) {
		t.Errorf("regular file: err = %v, want ErrNotBlockDevice", err)
	}
	err := (OSExclusiveOpener{}).OpenExclusive(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrBusy) {
		t.Errorf("missing: err = %v", err)
	}
}
