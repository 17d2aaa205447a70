//go:build linux

package devices

import (
	"fmt"
	"syscall"
)

// OpenExclusive opens devPath with O_EXCL: on Linux that fails with EBUSY
// when the block device is mounted, is part of a device-mapper or RAID
// device, or is opened exclusively by anyone else.
func (OSExclusiveOpener) OpenExclusive(devPath string) error {
	fd, err := syscall.Open(devPath, syscall.O_RDONLY|syscall.O_EXCL|syscall.O_CLOEXEC, 0)
	if err != nil {
		if err == syscall.EBUSY {
			return fmt.Errorf("open %s: %w", devPath, ErrBusy)
		}
		return fmt.Errorf("open %s exclusively: %w", devPath, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", devPath, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFBLK {
		return fmt.Errorf("%s: %w", devPath, ErrNotBlockDevice)
	}
	return nil
}
