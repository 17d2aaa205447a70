package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/csi-protect/external-provisioner/internal/testutil/hosttree"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// ---- The fake host: /dev, /sys and /proc under t.TempDir(). ----

// disk is one fake block device.
type disk struct {
	kname      string // /dev/sdb
	id         string // its /dev/disk/by-id link name
	majMin     string
	size       int64
	rotational bool
	model      string
	vendor     string
	fsType     string // what lsblk and blkid report
}

// host is the fake node. lsblk answers from its disk list at each call, so
// tests can change it while the agent runs.
type host struct {
	*hosttree.Tree
	t     *testing.T
	fs    devices.RootedFS
	mu    sync.Mutex
	disks []disk
	busy  map[string]bool // kernel path -> O_EXCL open fails with EBUSY
	wipes map[string]int  // kernel path -> wipes
	// wipeHook, when set, runs inside Wipe before it is counted; an error
	// from it fails the wipe.
	wipeHook func(ctx context.Context, kname string) error
	mounts   []string
}

func newHost(t *testing.T, disks ...disk) *host {
	t.Helper()
	tree := hosttree.New(t)
	h := &host{Tree: tree, t: t, fs: devices.RootedFS{Root: tree.Root}, busy: map[string]bool{}, wipes: map[string]int{}}
	h.Mkdir("/dev/disk/by-id")
	h.Mkdir(testRoot)
	h.writeMounts()
	for _, d := range disks {
		h.addDisk(d)
	}
	return h
}

func (h *host) addDisk(d disk) {
	h.t.Helper()
	if d.size == 0 {
		d.size = 100 << 30
	}
	if d.majMin == "" {
		h.mu.Lock()
		d.majMin = fmt.Sprintf("8:%d", 16*(len(h.disks)+1))
		h.mu.Unlock()
	}
	h.BlockDevice(d.kname, d.majMin)
	if d.id != "" {
		h.Symlink("/dev/disk/by-id/"+d.id, "../../"+filepath.Base(d.kname))
	}
	h.mu.Lock()
	h.disks = append(h.disks, d)
	h.mu.Unlock()
}

func (h *host) disk(kname string) disk {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range h.disks {
		if d.kname == kname {
			return d
		}
	}
	h.t.Fatalf("no disk %s", kname)
	return disk{}
}

// mount makes mountinfo list kname as mounted (as a pod's volume would be).
func (h *host) mount(kname string) {
	d := h.disk(kname)
	h.mu.Lock()
	h.mounts = append(h.mounts, fmt.Sprintf("%d 1 %s / /var/lib/kubelet/pods/p%d/mount rw,relatime - ext4 %s rw",
		100+len(h.mounts), d.majMin, len(h.mounts), kname))
	h.mu.Unlock()
	h.writeMounts()
}

func (h *host) unmountAll() {
	h.mu.Lock()
	h.mounts = nil
	h.mu.Unlock()
	h.writeMounts()
}

func (h *host) writeMounts() {
	h.mu.Lock()
	lines := append([]string{"22 1 0:21 / / rw,relatime - overlay overlay rw"}, h.mounts...)
	h.mu.Unlock()
	h.Mountinfo(lines...)
}

func (h *host) setWipeHook(hook func(ctx context.Context, kname string) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wipeHook = hook
}

func (h *host) setBusy(kname string, busy bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.busy[kname] = busy
}

func (h *host) wipeCount(kname string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.wipes[kname]
}

// Run answers lsblk from the disk list and blkid from each disk's fsType.
func (h *host) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	switch {
	case name == "lsblk" && slices.Equal(args, devices.LsblkArgs()):
		return h.lsblkJSON(), nil
	case name == "blkid" && len(args) > 0:
		dev := args[len(args)-1]
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, d := range h.disks {
			if d.kname == dev && d.fsType != "" {
				return []byte("DEVNAME=" + dev + "\nTYPE=" + d.fsType + "\nUSAGE=filesystem\n"), nil
			}
		}
		return nil, &devices.CommandError{Name: name, Args: args, ExitCode: 2, Err: fmt.Errorf("exit status 2")}
	}
	return nil, fmt.Errorf("fake host: unexpected command %s %v", name, args)
}

func (h *host) lsblkJSON() []byte {
	type entry struct {
		Name       string  `json:"name"`
		KName      string  `json:"kname"`
		Path       string  `json:"path"`
		Type       string  `json:"type"`
		Size       int64   `json:"size"`
		Rota       bool    `json:"rota"`
		RO         bool    `json:"ro"`
		RM         bool    `json:"rm"`
		Model      string  `json:"model"`
		Vendor     string  `json:"vendor"`
		Serial     string  `json:"serial"`
		FSType     *string `json:"fstype"`
		MountPoint *string `json:"mountpoint"`
		PKName     *string `json:"pkname"`
		State      string  `json:"state"`
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out struct {
		BlockDevices []entry `json:"blockdevices"`
	}
	for _, d := range h.disks {
		e := entry{Name: d.kname, KName: d.kname, Path: d.kname, Type: "disk", Size: d.size, Rota: d.rotational,
			Model: d.model, Vendor: d.vendor, Serial: d.id, State: "running"}
		if d.fsType != "" {
			fs := d.fsType
			e.FSType = &fs
		}
		out.BlockDevices = append(out.BlockDevices, e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return b
}

// OpenExclusive is the O_EXCL probe.
func (h *host) OpenExclusive(p string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.busy[p] {
		return fmt.Errorf("open %s: %w", p, devices.ErrBusy)
	}
	return nil
}

// Wipe counts the wipe and clears the disk's signature.
func (h *host) Wipe(ctx context.Context, p string) error {
	h.mu.Lock()
	hook := h.wipeHook
	h.mu.Unlock()
	if hook != nil {
		if err := hook(ctx, p); err != nil {
			return err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wipes[p]++
	for i := range h.disks {
		if h.disks[i].kname == p {
			h.disks[i].fsType = ""
		}
	}
	return nil
}

// format puts a filesystem signature on a disk, as a pod using its PV would.
func (h *host) format(kname, fsType string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range h.disks {
		if h.disks[i].kname == kname {
			h.disks[i].fsType = fsType
		}
	}
}

func (h *host) checker() *devices.Checker {
	return &devices.Checker{FS: h.fs, Prober: devices.BlkidProber{Runner: h}, Opener: h}
}
