package devices

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// Request says which devices to select: by Filter (a LocalVolumeSet) or by
// Paths (a LocalVolume's devicePaths), exactly one of the two.
type Request struct {
	Filter *Filter
	// Paths may be /dev/sdX, /dev/disk/by-id/..., or any symlink that
	// resolves under /dev.
	Paths []string
	// Force (forceWipeDevicesAndDestroyAllData) lets through devices that
	// carry a signature (HasFilesystem), and nothing else: a mounted,
	// read-only, partitioned or busy device is refused even with Force.
	Force bool
}

// Selected is a device that may be used now.
type Selected struct {
	Device Device
	// RequestedPath is the entry of Request.Paths that named the device, ""
	// for selection by Filter.
	RequestedPath string
	// StableName is StableName(device): the /dev/disk/by-id link to point
	// the PV's symlink at, or the kernel path when there is none.
	StableName string
}

// Rejection says why a device or a requested path was not selected.
type Rejection struct {
	// Path is the requested path, or the device's KName for selection by
	// Filter.
	Path string
	// Device is the device refused; nil when Path named no listed device.
	Device  *Device
	Reason  Reason
	Message string
}

func (r Rejection) String() string {
	return fmt.Sprintf("%s: %s: %s", r.Path, r.Reason, r.Message)
}

// Selection is the outcome of Select.
type Selection struct {
	// Selected is sorted by StableName, so MaxCount keeps the same devices
	// across reboots that rename sda and sdb.
	Selected []Selected
	// Rejected has one entry per refused device or path.
	Rejected []Rejection
}

// Select returns the devices of the list (from ListDevices) that the request
// selects and that pass every safety check, and why each other one was
// refused. Filter checks come first and need no I/O; then the safety checks
// (see Reason). Select keeps no state: a device that backs an existing PV
// and is now mounted by a pod comes back Rejected as Mounted; whether it is
// "ours" is the agent's business.
//
// Before wiping, the agent calls Select again with Paths set to the PV's
// device and Force set (the device holds the PV's data by design), and wipes
// only if the device comes back selected.
//
// The error is for what makes every answer unreliable: a Checker field not
// set, mountinfo or /dev/disk/by-id unreadable, a malformed request. A
// Rejection's Device points into devices.
func (c *Checker) Select(ctx context.Context, devices []Device, req Request) (Selection, error) {
	if err := c.validate(); err != nil {
		return Selection{}, err
	}
	if (req.Filter == nil) == (len(req.Paths) == 0) {
		return Selection{}, errors.New("devices.Select: set exactly one of Request.Filter and Request.Paths")
	}
	mounts, err := c.loadMounts()
	if err != nil {
		return Selection{}, err
	}
	byKName := make(map[string]*Device, len(devices))
	for i := range devices {
		if _, dup := byKName[devices[i].KName]; !dup {
			byKName[devices[i].KName] = &devices[i]
		}
	}
	ids, err := newByIDIndex(c.FS)
	if err != nil {
		return Selection{}, err
	}
	env := &selectEnv{byKName: byKName, mounts: mounts, ids: ids, force: req.Force}
	if req.Filter != nil {
		return c.selectByFilter(ctx, devices, env, req.Filter), nil
	}
	return c.selectByPaths(ctx, env, req.Paths), nil
}

// selectEnv is what one Select reads once and shares across devices.
type selectEnv struct {
	byKName map[string]*Device
	mounts  *mountIndex
	ids     byIDIndex
	force   bool
}

func (c *Checker) selectByFilter(ctx context.Context, devices []Device, env *selectEnv, f *Filter) Selection {
	var sel Selection
	for i := range devices {
		dev := &devices[i]
		if env.byKName[dev.KName] != dev {
			continue // a repeated entry in a hand-built list
		}
		if reason, msg := f.match(dev); reason != "" {
			sel.Rejected = append(sel.Rejected, Rejection{Path: dev.KName, Device: dev, Reason: reason, Message: msg})
			continue
		}
		if s, rej := c.accept(ctx, dev, "", env); rej != nil {
			sel.Rejected = append(sel.Rejected, *rej)
		} else {
			sel.Selected = append(sel.Selected, s)
		}
	}
	sort.SliceStable(sel.Selected, func(i, j int) bool { return sel.Selected[i].StableName < sel.Selected[j].StableName })
	if limit := f.MaxCount; limit > 0 && len(sel.Selected) > limit {
		for _, s := range sel.Selected[limit:] {
			dev := env.byKName[s.Device.KName]
			sel.Rejected = append(sel.Rejected, Rejection{
				Path: dev.KName, Device: dev, Reason: MaxCountReached,
				Message: fmt.Sprintf("%d devices already selected", limit),
			})
		}
		sel.Selected = sel.Selected[:limit]
	}
	return sel
}

func (c *Checker) selectByPaths(ctx context.Context, env *selectEnv, paths []string) Selection {
	var sel Selection
	seen := map[string]string{} // kname -> first path naming it
	for _, p := range paths {
		resolved, err := ResolveDevicePath(c.FS, p)
		if err != nil {
			reason := NotFound
			if errors.Is(err, ErrNotUnderDev) {
				reason = NotUnderDev
			}
			sel.Rejected = append(sel.Rejected, Rejection{Path: p, Reason: reason, Message: err.Error()})
			continue
		}
		dev, ok := env.byKName[resolved]
		if !ok {
			sel.Rejected = append(sel.Rejected, Rejection{Path: p, Reason: NotFound,
				Message: fmt.Sprintf("resolves to %s, which lsblk does not list", resolved)})
			continue
		}
		if first, dup := seen[resolved]; dup {
			sel.Rejected = append(sel.Rejected, Rejection{Path: p, Device: dev, Reason: Duplicate,
				Message: fmt.Sprintf("%s already names %s", first, resolved)})
			continue
		}
		seen[resolved] = p
		if s, rej := c.accept(ctx, dev, p, env); rej != nil {
			rej.Path = p
			sel.Rejected = append(sel.Rejected, *rej)
		} else {
			sel.Selected = append(sel.Selected, s)
		}
	}
	return sel
}

// accept runs the safety checks and names the device.
func (c *Checker) accept(ctx context.Context, dev *Device, requested string, env *selectEnv) (Selected, *Rejection) {
	kpath, rej := c.check(ctx, dev, env.byKName, env.mounts, env.force)
	if rej != nil {
		return Selected{}, rej
	}
	return Selected{Device: *dev, RequestedPath: requested, StableName: env.ids.name(kpath)}, nil
}
