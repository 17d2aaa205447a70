package devices

import (
	"fmt"
	"strings"
)

// Filter is a LocalVolumeSet-style device selector in plain types; the agent
// maps the API object onto it. A zero field does not filter, except
// DeviceTypes.
type Filter struct {
	// DeviceTypes are lsblk TYPE values to accept (disk, part, mpath...);
	// empty means only "disk", as in LocalVolumeSet.
	DeviceTypes []string
	// Rotational, when set, accepts only rotational (true) or only
	// non-rotational (false) devices.
	Rotational *bool
	// MinSize and MaxSize bound the size in bytes, inclusive.
	MinSize *int64
	MaxSize *int64
	// Models and Vendors accept a device whose MODEL (VENDOR) contains any
	// of the strings, case-sensitively, as LocalVolumeSet does.
	Models  []string
	Vendors []string
	// MaxCount caps how many devices one Select returns; 0 means no cap.
	// The agent subtracts the devices it already uses.
	MaxCount int
}

// defaultDeviceTypes apply when Filter.DeviceTypes is empty.
var defaultDeviceTypes = []string{"disk"}

// match returns the first way dev fails the filter, or "" when it passes.
// These are the cheap checks on lsblk's data, made before any I/O.
func (f *Filter) match(dev *Device) (Reason, string) {
	types := f.DeviceTypes
	if len(types) == 0 {
		types = defaultDeviceTypes
	}
	if !containsFold(types, dev.Type) {
		return WrongType, fmt.Sprintf("type %q is not one of %v", dev.Type, types)
	}
	if dev.Removable {
		return Removable, "removable devices are only used when named in devicePaths"
	}
	if f.Rotational != nil && dev.Rotational != *f.Rotational {
		if dev.Rotational {
			return WrongRotational, "device is rotational"
		}
		return WrongRotational, "device is not rotational"
	}
	if f.MinSize != nil && dev.SizeBytes < *f.MinSize {
		return TooSmall, fmt.Sprintf("size %d bytes is below the minimum %d", dev.SizeBytes, *f.MinSize)
	}
	if f.MaxSize != nil && dev.SizeBytes > *f.MaxSize {
		return TooLarge, fmt.Sprintf("size %d bytes is above the maximum %d", dev.SizeBytes, *f.MaxSize)
	}
	if len(f.Models) > 0 && !containsAny(dev.Model, f.Models) {
		return WrongModel, fmt.Sprintf("model %q matches none of %q", dev.Model, f.Models)
	}
	if len(f.Vendors) > 0 && !containsAny(dev.Vendor, f.Vendors) {
		return WrongVendor, fmt.Sprintf("vendor %q matches none of %q", dev.Vendor, f.Vendors)
	}
	return "", ""
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
