package devices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// LsblkColumns are the columns ListDevices asks lsblk for. Treat this and
// LsblkArgs as constants: the parser, the test samples and the fakes in the
// agent's tests all depend on exactly this list.
const LsblkColumns = "NAME,KNAME,PATH,TYPE,SIZE,ROTA,RO,RM,MODEL,VENDOR,SERIAL,FSTYPE,MOUNTPOINT,PKNAME,STATE"

// LsblkArgs returns the arguments ListDevices passes to lsblk:
//
//	--json --bytes --output <LsblkColumns> --paths
//
// It returns a new slice on every call so no caller can change it for others.
func LsblkArgs() []string {
	return []string{"--json", "--bytes", "--output", LsblkColumns, "--paths"}
}

// Device is one block device as lsblk reports it. With --paths every name
// is a /dev path.
type Device struct {
	// Name is lsblk's NAME, e.g. /dev/sda or /dev/mapper/vg0-lv0.
	Name string
	// KName is the kernel name, e.g. /dev/sda or /dev/dm-0. Devices are
	// identified by KName throughout this package.
	KName string
	// Path is lsblk's preferred path (PATH); Name when lsblk gave none.
	Path string
	// Type is lsblk's TYPE: disk, part, loop, lvm, crypt, mpath, raid1, rom...
	Type       string
	SizeBytes  int64
	Rotational bool
	ReadOnly   bool
	Removable  bool
	// Model, Vendor and Serial are trimmed of the padding some drivers add.
	Model  string
	Vendor string
	Serial string
	// FSType is the signature udev knows of; it may be stale or empty where
	// udev does not run, which is why Checker also asks blkid.
	FSType     string
	MountPoint string
	// Parent is the KName of the device lsblk shows this one under, "" for a
	// top-level device. A device built on several parents (an LVM volume
	// over two disks) keeps the first; every parent lists it in Children.
	Parent string
	// State is lsblk's STATE (running, live, suspended...), often empty.
	State string
	// Children are the KNames of the devices directly on top of this one:
	// partitions, and device-mapper, LVM or RAID devices built on it.
	Children []string
}

// ListDevices runs lsblk through r and parses its output.
func ListDevices(ctx context.Context, r Runner) ([]Device, error) {
	out, err := r.Run(ctx, "lsblk", LsblkArgs()...)
	if err != nil {
		return nil, fmt.Errorf("listing block devices: %w", err)
	}
	return ParseLsblk(out)
}

// ParseLsblk parses the output of lsblk with LsblkArgs into a flat list:
// each top-level device followed by its descendants, depth first, each
// device once.
//
// util-linux's JSON changed over versions: releases before 2.33 print every
// value as a string ("size": "107374182400", "ro": "0"), later ones print
// numbers and booleans ("size": 107374182400, "ro": false), and any value
// may be null. Both forms are accepted.
func ParseLsblk(data []byte) ([]Device, error) {
	var out struct {
		BlockDevices *[]lsblkDevice `json:"blockdevices"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("parsing lsblk output: %w", err)
	}
	if out.BlockDevices == nil {
		return nil, errors.New("parsing lsblk output: no \"blockdevices\" key")
	}
	f := flattener{index: map[string]int{}}
	for i := range *out.BlockDevices {
		f.add(&(*out.BlockDevices)[i], "")
	}
	return f.devices, nil
}

type lsblkDevice struct {
	Name       string        `json:"name"`
	KName      string        `json:"kname"`
	Path       string        `json:"path"`
	Type       string        `json:"type"`
	Size       jsonInt       `json:"size"`
	Rota       jsonBool      `json:"rota"`
	RO         jsonBool      `json:"ro"`
	RM         jsonBool      `json:"rm"`
	Model      string        `json:"model"`
	Vendor     string        `json:"vendor"`
	Serial     string        `json:"serial"`
	FSType     string        `json:"fstype"`
	MountPoint string        `json:"mountpoint"`
	PKName     string        `json:"pkname"`
	State      string        `json:"state"`
	Children   []lsblkDevice `json:"children"`
}

// flattener turns lsblk's tree into a list. lsblk repeats a device under each
// of its parents (an LVM volume over two disks, a RAID over two partitions),
// so devices are kept once, by KName.
type flattener struct {
	devices []Device
	index   map[string]int
}

// add appends d and its descendants, and returns d's KName.
func (f *flattener) add(d *lsblkDevice, parent string) string {
	kname := d.KName
	if kname == "" {
		kname = d.Name
	}
	if _, seen := f.index[kname]; !seen {
		if parent == "" {
			parent = d.PKName
		}
		path := d.Path
		if path == "" {
			path = d.Name
		}
		f.index[kname] = len(f.devices)
		f.devices = append(f.devices, Device{
			Name:       d.Name,
			KName:      kname,
			Path:       path,
			Type:       d.Type,
			SizeBytes:  d.Size.v,
			Rotational: d.Rota.v,
			ReadOnly:   d.RO.v,
			Removable:  d.RM.v,
			Model:      strings.TrimSpace(d.Model),
			Vendor:     strings.TrimSpace(d.Vendor),
			Serial:     strings.TrimSpace(d.Serial),
			FSType:     d.FSType,
			MountPoint: d.MountPoint,
			Parent:     parent,
			State:      d.State,
		})
	}
	for i := range d.Children {
		child := f.add(&d.Children[i], kname)
		// Index again: appending children may have moved the slice.
		dev := &f.devices[f.index[kname]]
		if !contains(dev.Children, child) {
			dev.Children = append(dev.Children, child)
		}
	}
	return kname
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
