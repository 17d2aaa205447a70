package devices

// Reason says why a device was not selected; the agent puts it in events and
// logs. Values are stable CamelCase words, fit for an event's reason field.
type Reason string

// Reasons a filter does not match (only for selection by Filter).
const (
	// WrongType: the device's TYPE is not among Filter.DeviceTypes.
	WrongType Reason = "WrongType"
	// WrongRotational: the device is (not) rotational against Filter.Rotational.
	WrongRotational Reason = "WrongRotational"
	TooSmall        Reason = "TooSmall"
	TooLarge        Reason = "TooLarge"
	WrongModel      Reason = "WrongModel"
	WrongVendor     Reason = "WrongVendor"
	// Removable: removable media (USB sticks, card readers) are never picked
	// by a filter; name them in devicePaths to use them.
	Removable Reason = "Removable"
	// MaxCountReached: the device qualified but Filter.MaxCount devices were
	// already selected before it.
	MaxCountReached Reason = "MaxCountReached"
)

// Reasons about an explicit device path.
const (
	// NotUnderDev: the path is relative, contains "..", or does not resolve
	// to a path under /dev. Also used for a device lsblk names outside /dev.
	NotUnderDev Reason = "NotUnderDev"
	// NotFound: the path does not exist, or resolves to something under /dev
	// that lsblk does not list as a block device.
	NotFound Reason = "NotFound"
	// Duplicate: an earlier path in the same request names the same device.
	Duplicate Reason = "Duplicate"
)

// Safety reasons: the device holds something or is used by something. Only
// HasFilesystem gives way to Request.Force; the others never do.
const (
	ReadOnly Reason = "ReadOnly"
	// Suspended: a device-mapper device whose I/O is suspended.
	Suspended Reason = "Suspended"
	// Mounted: lsblk reports a mount point, or mountinfo lists the device
	// (including a bind mount of its node, as kubelet does for block volumes).
	Mounted Reason = "Mounted"
	// HasPartitions: the device has partitions and the device itself was
	// asked for; the partitions may be asked for instead.
	HasPartitions Reason = "HasPartitions"
	// InUse: something holds the device: a device-mapper, LVM or RAID device
	// built on it (lsblk children, sysfs holders), or an O_EXCL open fails
	// with EBUSY.
	InUse Reason = "InUse"
	// HasFilesystem: lsblk or blkid finds a signature (filesystem, partition
	// table, LVM, RAID, crypto...). Request.Force lets the device through.
	HasFilesystem Reason = "HasFilesystem"
	// CheckFailed: a check could not be made (blkid failed, the O_EXCL open
	// failed for another reason than EBUSY); the device is refused rather
	// than assumed free.
	CheckFailed Reason = "CheckFailed"
)
