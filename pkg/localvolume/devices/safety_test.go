package devices

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// outcome flattens a Selection: path -> Reason, "" for selected.
func outcome(sel Selection) map[string]Reason {
	m := map[string]Reason{}
	for _, s := range sel.Selected {
		p := s.RequestedPath
		if p == "" {
			p = s.Device.KName
		}
		m[p] = ""
	}
	for _, r := range sel.Rejected {
		m[r.Path] = r.Reason
	}
	return m
}

func disk(kname string, mod ...func(*Device)) Device {
	d := Device{Name: kname, KName: kname, Path: kname, Type: "disk", SizeBytes: 100 << 30, Rotational: true}
	for _, f := range mod {
		f(&d)
	}
	return d
}

// safetyNode is a host with one device per safety rule.
type safetyNode struct {
	tr      *tree
	devices []Device
	runner  *fakeRunner
	opener  *fakeOpener
}

func newSafetyNode(t *testing.T) *safetyNode {
	tr := newTree(t)
	devs := []Device{
		disk("/dev/sda", func(d *Device) { d.Children = []string{"/dev/sda1", "/dev/sda2"} }),
		{Name: "/dev/sda1", KName: "/dev/sda1", Path: "/dev/sda1", Type: "part", SizeBytes: 1 << 30, FSType: "vfat", MountPoint: "/boot/efi", Parent: "/dev/sda"},
		{Name: "/dev/sda2", KName: "/dev/sda2", Path: "/dev/sda2", Type: "part", SizeBytes: 99 << 30, FSType: "xfs", MountPoint: "/", Parent: "/dev/sda"},
		disk("/dev/sdb"), // clean
		disk("/dev/sdc"), // mounted, per mountinfo only (stale udev)
		disk("/dev/sdd"), // mounted, known by device number only
		disk("/dev/sde", func(d *Device) { d.ReadOnly = true }),
		disk("/dev/sdf"), // blkid: xfs
		disk("/dev/sdg"), // O_EXCL: EBUSY
		disk("/dev/sdh"), // sysfs holder dm-3
		disk("/dev/sdi", func(d *Device) { d.FSType = "ext4" }),
		disk("/dev/sdj"), // its node bind-mounted by kubelet (block volume)
		disk("/dev/sdk"), // blkid fails
		disk("/dev/sdl"), // O_EXCL: EIO
		disk("/dev/sdm"), // mounted through /dev/disk/by-uuid
		disk("/dev/sdn", func(d *Device) { d.Children = []string{"/dev/dm-0"} }),
		{Name: "/dev/mapper/vg-lv", KName: "/dev/dm-0", Path: "/dev/mapper/vg-lv", Type: "lvm", SizeBytes: 50 << 30, FSType: "xfs", MountPoint: "/data", Parent: "/dev/sdn"},
		{Name: "/dev/mapper/mpathb", KName: "/dev/dm-5", Path: "/dev/mapper/mpathb", Type: "mpath", SizeBytes: 500 << 30, State: "suspended"},
		disk("/dev/sdo", func(d *Device) { d.MountPoint = "[SWAP]" }),
		disk("/dev/sdp"), // blkid: gpt, no partitions
		disk("/dev/sdq"), // blkid: ambivalent
		disk("/etc/passwd"),
		disk("/dev/sdr"), // listed, but no node
	}
	for i, d := range devs {
		switch d.KName {
		case "/etc/passwd", "/dev/sdr":
			continue
		}
		tr.BlockDevice(d.KName, fmt.Sprintf("8:%d", i*16))
		if d.Name != d.KName {
			tr.Symlink(d.Name, "../"+d.KName[len("/dev/"):])
		}
	}
	tr.File("/etc/passwd", "root:x:0:0")
	tr.BlockDevice("/dev/sdd", "65:0") // matched by number alone
	tr.File("/sys/class/block/sdh/holders/dm-3", "")
	tr.Symlink("/dev/disk/by-id/wwn-0x5000c500000000b0", "../../sdb")
	tr.Symlink("/dev/disk/by-uuid/7d3c0a52", "../../sdm")
	tr.Mountinfo(
		"24 27 0:6 / /dev rw - devtmpfs devtmpfs rw",
		"27 1 8:32 / / rw - xfs /dev/sda2 rw",
		"30 27 8:16 / /boot/efi rw - vfat /dev/sda1 rw",
		"40 27 0:50 / /var/lib/stale rw - btrfs /dev/sdc rw", // anonymous st_dev: matched by source
		"41 27 65:0 / /var/lib/byno rw - ext4 /dev/root rw",
		"42 27 0:6 /sdj /var/lib/kubelet/plugins/kubernetes.io~local-volume/volumeDevices/pv-j/pod-1 rw - devtmpfs udev rw",
		"43 27 0:51 / /srv/m rw - btrfs /dev/disk/by-uuid/7d3c0a52 rw",
	)
	r := newFakeRunner().
		on("blkid -p -o export /dev/sdf", "DEVNAME=/dev/sdf\nUUID=1\nTYPE=xfs\nUSAGE=filesystem\n", nil).
		on("blkid -p -o export /dev/sdk", "", exitErr("blkid", 4, "blkid: error")).
		on("blkid -p -o export /dev/sdp", string(readSample(t, "blkid/gpt-disk.txt")), nil).
		on("blkid -p -o export /dev/sdq", "", exitErr("blkid", 8, ""))
	o := &fakeOpener{errs: map[string]error{"/dev/sdg": busy("/dev/sdg"), "/dev/sdl": eio("/dev/sdl")}}
	return &safetyNode{tr: tr, devices: devs, runner: r, opener: o}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + func() string { return fmtInt(i) }())
}

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

var allTypes = &Filter{DeviceTypes: []string{"disk", "part", "lvm", "mpath"}}

func TestSafetyRules(t *testing.T) {
	want := map[string]struct{ plain, force Reason }{
		"/dev/sda":    {HasPartitions, HasPartitions},
		"/dev/sda1":   {Mounted, Mounted},
		"/dev/sda2":   {Mounted, Mounted},
		"/dev/sdb":    {"", ""},
		"/dev/sdc":    {Mounted, Mounted},
		"/dev/sdd":    {Mounted, Mounted},
		"/dev/sde":    {ReadOnly, ReadOnly},
		"/dev/sdf":    {HasFilesystem, ""},
		"/dev/sdg":    {InUse, InUse},
		"/dev/sdh":    {InUse, InUse},
		"/dev/sdi":    {HasFilesystem, ""},
		"/dev/sdj":    {Mounted, Mounted},
		"/dev/sdk":    {CheckFailed, ""}, // with force blkid is not asked
		"/dev/sdl":    {CheckFailed, CheckFailed},
		"/dev/sdm":    {Mounted, Mounted},
		"/dev/sdn":    {InUse, InUse},
		"/dev/dm-0":   {Mounted, Mounted},
		"/dev/dm-5":   {Suspended, Suspended},
		"/dev/sdo":    {Mounted, Mounted},
		"/dev/sdp":    {HasFilesystem, ""},
		"/dev/sdq":    {HasFilesystem, ""},
		"/etc/passwd": {NotUnderDev, NotUnderDev},
		"/dev/sdr":    {NotFound, NotFound},
	}
	for _, force := range []bool{false, true} {
		n := newSafetyNode(t)
		sel, err := n.tr.checker(n.runner, n.opener).Select(context.Background(), n.devices, Request{Filter: allTypes, Force: force})
		if err != nil {
			t.Fatal(err)
		}
		got := outcome(sel)
		for k, w := range want {
			exp := w.plain
			if force {
				exp = w.force
			}
			if r, ok := got[k]; !ok || r != exp {
				t.Errorf("force=%v %s: got %q (present %v), want %q", force, k, r, ok, exp)
			}
		}
		if len(got) != len(want) {
			t.Errorf("force=%v: %d outcomes, want %d", force, len(got), len(want))
		}
		for _, r := range sel.Rejected {
			if r.Message == "" || r.Device == nil {
				t.Errorf("rejection without message or device: %+v", r)
			}
		}
		// The real node was never touched: only the fake opener was asked,
		// and never about a device already refused for cheaper reasons.
		for _, p := range n.opener.opened {
			if want[p].force == Mounted || want[p].force == ReadOnly || want[p].force == HasPartitions {
				t.Errorf("opened %s, which was refused before", p)
			}
		}
	}
}

func TestSafetyMessages(t *testing.T) {
	n := newSafetyNode(t)
	sel, err := n.tr.checker(n.runner, n.opener).Select(context.Background(), n.devices, Request{Filter: allTypes})
	if err != nil {
		t.Fatal(err)
	}
	msgs := map[string]string{}
	for _, r := range sel.Rejected {
		msgs[r.Path] = r.String()
	}
	for path, want := range map[string]string{
		"/dev/sda":  "has partitions /dev/sda1, /dev/sda2",
		"/dev/sdc":  "mounted at /var/lib/stale",
		"/dev/sdf":  "blkid finds TYPE=xfs",
		"/dev/sdh":  "held by dm-3",
		"/dev/sdn":  "/dev/dm-0 (lvm)",
		"/dev/sdj":  "volumeDevices/pv-j/pod-1",
		"/dev/sdp":  "PTTYPE=gpt",
		"/dev/sdg":  "busy",
		"/dev/sdo":  "[SWAP]",
		"/dev/sdi":  "FSTYPE=ext4",
		"/dev/dm-5": "suspended",
	} {
		if !strings.Contains(msgs[path], want) {
			t.Errorf("%s: %q does not say %q", path, msgs[path], want)
		}
	}
}

func TestSelectPaths(t *testing.T) {
	n := newSafetyNode(t)
	tr := n.tr
	tr.Symlink("/dev/disk/by-id/evil", "/etc/passwd")
	tr.Symlink("/dev/disk/by-id/evil-rel", "../../../etc/passwd")
	tr.Symlink("/dev/disk/by-id/up", "../..")
	tr.File("/dev/shm/not-a-disk", "")
	tr.Symlink("/var/lib/disk-p", "/dev/sdp")
	paths := []string{
		"/dev/sdb",
		"/dev/disk/by-id/wwn-0x5000c500000000b0", // sdb again
		"/dev/disk/by-id/evil",
		"/dev/disk/by-id/evil-rel",
		"/dev/disk/by-id/up",
		"dev/sdb",
		"/dev/../etc/passwd",
		"/dev/nonexistent",
		"/dev/shm/not-a-disk",
		"/dev/sda",
		"/dev/sda2",
		"/dev/mapper/vg-lv",
		"/var/lib/disk-p", // outside /dev, resolves into it
		"/dev/sdf",
	}
	sel, err := tr.checker(n.runner, n.opener).Select(context.Background(), n.devices, Request{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Reason{
		"/dev/sdb":                               "",
		"/dev/disk/by-id/wwn-0x5000c500000000b0": Duplicate,
		"/dev/disk/by-id/evil":                   NotUnderDev,
		"/dev/disk/by-id/evil-rel":               NotUnderDev,
		"/dev/disk/by-id/up":                     NotUnderDev,
		"dev/sdb":                                NotUnderDev,
		"/dev/../etc/passwd":                     NotUnderDev,
		"/dev/nonexistent":                       NotFound,
		"/dev/shm/not-a-disk":                    NotFound,
		"/dev/sda":                               HasPartitions,
		"/dev/sda2":                              Mounted,
		"/dev/mapper/vg-lv":                      Mounted,
		"/var/lib/disk-p":                        HasFilesystem,
		"/dev/sdf":                               HasFilesystem,
	}
	if got := outcome(sel); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if len(sel.Selected) != 1 {
		t.Fatalf("selected %+v", sel.Selected)
	}
	s := sel.Selected[0]
	if s.RequestedPath != "/dev/sdb" || s.Device.KName != "/dev/sdb" || s.StableName != "/dev/disk/by-id/wwn-0x5000c500000000b0" {
		t.Errorf("selected %+v", s)
	}

	// With force, the devices with signatures come through, and only they.
	sel, err = tr.checker(n.runner, n.opener).Select(context.Background(), n.devices, Request{Paths: paths, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sel.Selected {
		names = append(names, s.RequestedPath)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"/dev/sdb", "/dev/sdf", "/var/lib/disk-p"}) {
		t.Errorf("force selected %v", names)
	}
}

// Before a wipe the agent re-checks the PV's device with Force: a device
// mounted since (here by a pod's block volume) must come back refused.
func TestRecheckBeforeWipe(t *testing.T) {
	n := newSafetyNode(t)
	c := n.tr.checker(n.runner, n.opener)
	req := Request{Paths: []string{"/dev/disk/by-id/wwn-0x5000c500000000b0"}, Force: true}
	sel, err := c.Select(context.Background(), n.devices, req)
	if err != nil || len(sel.Selected) != 1 {
		t.Fatalf("%+v, %v", sel, err)
	}
	n.tr.Mountinfo("50 27 0:6 /sdb /var/lib/kubelet/pods/x/volumeDevices/kubernetes.io~local-volume/pv rw - devtmpfs udev rw")
	sel, err = c.Select(context.Background(), n.devices, req)
	if err != nil || len(sel.Rejected) != 1 || sel.Rejected[0].Reason != Mounted {
		t.Fatalf("%+v, %v", sel, err)
	}
}

func TestSelectErrors(t *testing.T) {
	ctx := context.Background()
	n := newSafetyNode(t)
	c := n.tr.checker(n.runner, n.opener)
	if _, err := c.Select(ctx, n.devices, Request{}); err == nil {
		t.Error("empty request accepted")
	}
	if _, err := c.Select(ctx, n.devices, Request{Filter: &Filter{}, Paths: []string{"/dev/sdb"}}); err == nil {
		t.Error("request with both Filter and Paths accepted")
	}
	for name, bad := range map[string]*Checker{
		"no FS":     {Prober: c.Prober, Opener: c.Opener},
		"no Prober": {FS: c.FS, Opener: c.Opener},
		"no Opener": {FS: c.FS, Prober: c.Prober},
	} {
		if _, err := bad.Select(ctx, n.devices, Request{Filter: &Filter{}}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Without mountinfo nothing can be shown unmounted: fail the whole call.
	c2 := *c
	c2.MountInfoPath = "/proc/1/mountinfo"
	if _, err := c2.Select(ctx, n.devices, Request{Filter: &Filter{}}); err == nil {
		t.Error("missing mountinfo accepted")
	}
	n.tr.File("/proc/self/mountinfo", "garbage\n")
	if _, err := c.Select(ctx, n.devices, Request{Filter: &Filter{}}); err == nil {
		t.Error("malformed mountinfo accepted")
	}
}

func TestNewOSChecker(t *testing.T) {
	c := NewOSChecker(ExecRunner{})
	if c.validate() != nil {
		t.Error(c.validate())
	}
	if _, ok := c.FS.(OSFS); !ok {
		t.Errorf("FS = %T", c.FS)
	}
}

func TestSysPath(t *testing.T) {
	c := &Checker{}
	for in, want := range map[string]string{
		"/dev/sdb":        "/sys/class/block/sdb/holders",
		"/dev/dm-0":       "/sys/class/block/dm-0/holders",
		"/dev/cciss/c0d0": "/sys/class/block/cciss!c0d0/holders",
	} {
		if got := c.sysPath(in, "holders"); got != want {
			t.Errorf("sysPath(%s) = %s, want %s", in, got, want)
		}
	}
}
