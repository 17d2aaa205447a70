package devices

import "errors"

// ErrBusy: an O_EXCL open of a block device failed with EBUSY, so something
// holds it: a mounted filesystem, device-mapper (LVM, multipath, crypt), md
// RAID, swap, or another program that opened it exclusively.
var ErrBusy = errors.New("device is busy (held open exclusively)")

// ErrNotBlockDevice: the O_EXCL probe was asked about something that is not
// a block device. O_EXCL without O_CREAT only means "exclusive" for block
// devices, so a successful open of anything else would prove nothing.
var ErrNotBlockDevice = errors.New("not a block device")

// ExclusiveOpener tries to open a block device exclusively and closes it at
// once. It returns nil when nobody holds the device, an error wrapping ErrBusy
// when someone does, and any other error when it could not tell.
//
// The answer is only true at the moment of the call: callers repeat the check
// right before acting (Checker.Check before a wipe). While the probe holds the
// device, a concurrent mount of it would fail; the window is a few
// microseconds.
type ExclusiveOpener interface {
	OpenExclusive(devPath string) error
}

// OSExclusiveOpener opens devices with O_RDONLY|O_EXCL (Linux only; on other
// systems it always fails, which makes every device refused).
type OSExclusiveOpener struct{}
