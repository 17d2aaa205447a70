package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOwnMemoryCgroup(t *testing.T) {
	const (
		// The memory controller still mounted as v1 next to an empty
		// unified hierarchy, as on this project's CI machines.
		hybridSelf   = "9:name=systemd:/\n4:memory:/process_api/21d2a78b\n1:cpu:/\n0::/\n"
		hybridMounts = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" +
			"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
			"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
			"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
		v2Self   = "0::/user.slice/session-1.scope\n"
		v2Mounts = "25 22 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
		// In a container the mount shows the hierarchy from the
		// container's own cgroup on.
		containerSelf   = "0::/docker/abc/bench\n"
		containerMounts = "700 690 0:22 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n"
	)
	for _, tc := range []struct {
		name, self, mounts string
		dir                string
		v2                 bool
	}{
		{"v1 memory beside v2", hybridSelf, hybridMounts, "/sys/fs/cgroup/memory/process_api/21d2a78b", false},
		{"v2", v2Self, v2Mounts, "/sys/fs/cgroup/user.slice/session-1.scope", true},
		{"v2 in a container", containerSelf, containerMounts, "/sys/fs/cgroup/bench", true},
	} {
		dir, v2, err := ownMemoryCgroup([]byte(tc.self), []byte(tc.mounts))
		if err != nil || dir != tc.dir || v2 != tc.v2 {
			t.Errorf("%s: %q, v2 %v, %v; want %q, v2 %v", tc.name, dir, v2, err, tc.dir, tc.v2)
		}
	}
	if _, _, err := ownMemoryCgroup([]byte("1:cpu:/\n"), []byte("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n")); err == nil {
		t.Error("no memory hierarchy, no error")
	}
}

func TestOOMKillsAreReadFromEitherVersion(t *testing.T) {
	v1 := "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"
	v2 := "low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n"
	if got := oomKillCount([]byte(v1)); got != 1 {
		t.Errorf("v1 memory.oom_control: %d OOM kills, want 1", got)
	}
	if got := oomKillCount([]byte(v2)); got != 2 {
		t.Errorf("v2 memory.events: %d OOM kills, want 2", got)
	}
}

// The wrapper enters the cgroup before anything else and becomes the
// sidecar, with its arguments as given.
func TestWrapperEntersTheCgroupThenExecs(t *testing.T) {
	c := &memoryCgroup{dir: "/sys/fs/cgroup/memory/it's"}
	path := filepath.Join(t.TempDir(), "wrapper.sh")
	if err := c.wrapper(path, "/work/bin/csi-provisioner"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "#!/bin/sh\necho $$ > '/sys/fs/cgroup/memory/it'\\''s/cgroup.procs' || exit 125\nexec '/work/bin/csi-provisioner' \"$@\"\n"
	if string(data) != want {
		t.Errorf("wrapper:\n%s\nwant:\n%s", data, want)
	}
	if fi, _ := os.Stat(path); fi.Mode()&0o100 == 0 || !strings.HasPrefix(string(data), "#!") {
		t.Error("wrapper is not executable")
	}
}
