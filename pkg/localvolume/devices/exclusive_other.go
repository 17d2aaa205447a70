//go:build !linux

package devices

import (
	"errors"
	"fmt"
)

// OpenExclusive always fails: only Linux gives O_EXCL on a block device the
// meaning this package relies on.
func (OSExclusiveOpener) OpenExclusive(devPath string) error {
	return fmt.Errorf("open %s exclusively: %w", devPath, errors.New("not supported on this system"))
}
