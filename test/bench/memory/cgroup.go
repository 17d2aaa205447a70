package memory

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// memoryCgroup is a memory cgroup of its own for one sidecar, made under
// the benchmark's own, with a hard limit: the kernel reclaims the
// process's page cache and then kills it (the OOM killer) when it needs
// more, as it would in a container with that limit. Both cgroup versions
// are handled: v2's memory.max, or v1's memory.limit_in_bytes where the
// memory controller is still mounted as v1.
type memoryCgroup struct {
	dir string
	v2  bool
}

// The files of each version: the limit, the peak usage and the events
// that count OOM kills.
const (
	v1Limit  = "memory.limit_in_bytes"
	v1Peak   = "memory.max_usage_in_bytes"
	v1Events = "memory.oom_control"
	v2Limit  = "memory.max"
	v2Peak   = "memory.peak"
	v2Events = "memory.events"
)

// newMemoryCgroup makes the cgroup name under the benchmark's own memory
// cgroup with the limit. It fails where cgroups cannot be written (not
// root, a read-only /sys/fs/cgroup) or where v2's memory controller is not
// enabled for the benchmark's children; it never changes the parent's
// settings.
func newMemoryCgroup(name string, limit int64) (*memoryCgroup, error) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	parent, v2, err := ownMemoryCgroup(self, mounts)
	if err != nil {
		return nil, err
	}
	c := &memoryCgroup{dir: filepath.Join(parent, name), v2: v2}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("make a memory cgroup: %w", err)
	}
	fail := func(err error) (*memoryCgroup, error) {
		_ = os.Remove(c.dir)
		return nil, err
	}
	limitFile := v1Limit
	if v2 {
		// The controller must be on for the benchmark's children, or
		// the new cgroup has no memory.max.
		if _, err := os.Stat(filepath.Join(c.dir, v2Limit)); err != nil {
			return fail(fmt.Errorf("cgroup v2 without the memory controller for the benchmark's children: %w", err))
		}
		limitFile = v2Limit
		// No swap to spill into, as a container's pod usually has none.
		_ = os.WriteFile(filepath.Join(c.dir, "memory.swap.max"), []byte("0"), 0o644)
	}
	if err := os.WriteFile(filepath.Join(c.dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		return fail(fmt.Errorf("set %s: %w", limitFile, err))
	}
	return c, nil
}

// ownMemoryCgroup finds the directory of the memory cgroup this process
// is in, from /proc/self/cgroup and /proc/self/mountinfo: v1's memory
// hierarchy if one is mounted, else the unified (v2) one.
func ownMemoryCgroup(self, mountinfo []byte) (dir string, v2 bool, err error) {
	var v1Path, v2Path string
	haveV1, haveV2 := false, false
	for line := range strings.Lines(string(self)) {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2Path, haveV2 = parts[2], true
		case namesMemory(parts[1]):
			v1Path, haveV1 = parts[2], true
		}
	}
	var v1Mount, v1Root, v2Mount, v2Root string
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case g[0] == "cgroup" && namesMemory(g[2]):
			v1Root, v1Mount = f[3], f[4]
		case g[0] == "cgroup2" && v2Mount == "":
			v2Root, v2Mount = f[3], f[4]
		}
	}
	switch {
	case haveV1 && v1Mount != "":
		return underMount(v1Mount, v1Root, v1Path), false, nil
	case haveV2 && v2Mount != "":
		return underMount(v2Mount, v2Root, v2Path), true, nil
	}
	return "", false, errors.New("no memory cgroup hierarchy mounted")
}

// namesMemory tells whether a comma-separated list of controllers (or
// mount options) names the memory controller.
func namesMemory(list string) bool {
	for _, f := range strings.Split(list, ",") {
		if f == "memory" {
			return true
		}
	}
	return false
}

// underMount maps a cgroup path to its directory: the mount shows the
// hierarchy from root on.
func underMount(mount, root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = path
	}
	return filepath.Join(mount, rel)
}

// procsFile is where a process writes its pid to enter the cgroup.
func (c *memoryCgroup) procsFile() string { return filepath.Join(c.dir, "cgroup.procs") }

// kind names the limit for the report.
func (c *memoryCgroup) kind() string {
	if c.v2 {
		return "cgroup v2 " + v2Limit
	}
	return "cgroup v1 " + v1Limit
}

// peak is the most memory the cgroup held (page cache included), 0 when
// the kernel does not say (v2 before Linux 5.19).
func (c *memoryCgroup) peak() int64 {
	file := v1Peak
	if c.v2 {
		file = v2Peak
	}
	data, err := os.ReadFile(filepath.Join(c.dir, file))
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}

// oomKills is how many processes the OOM killer ended in the cgroup.
func (c *memoryCgroup) oomKills() int {
	file := v1Events
	if c.v2 {
		file = v2Events
	}
	data, err := os.ReadFile(filepath.Join(c.dir, file))
	if err != nil {
		return 0
	}
	return oomKillCount(data)
}

// oomKillCount reads "oom_kill N" out of memory.events or
// memory.oom_control.
func oomKillCount(data []byte) int {
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok && k == "oom_kill" {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// remove deletes the cgroup once its process is gone; the kernel may take
// a moment to let go of an exited process.
func (c *memoryCgroup) remove() error {
	var err error
	for range 50 {
		if err = os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// wrapper writes a shell script that enters the cgroup and execs binary
// with its arguments: the sidecar is in the cgroup from its first
// instruction, and keeps the script's pid.
func (c *memoryCgroup) wrapper(path, binary string) error {
	script := fmt.Sprintf("#!/bin/sh\necho $$ > %s || exit 125\nexec %s \"$@\"\n", shellQuote(c.procsFile()), shellQuote(binary))
	return os.WriteFile(path, []byte(script), 0o755)
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// freshBinary copies binary to path, unless done already, and drops the
// copy's pages from the page cache: the sidecar's first touch of each
// page then reads it anew and charges it to its cgroup, as a container's
// image is charged to the container. Run from the shared binary, the
// pages other runs already read stay charged to them, and the hard limit
// would hold only the process's own allocations.
func freshBinary(binary, path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := copyFile(binary, path); err != nil {
			return err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// POSIX_FADV_DONTNEED (4) over the whole file; x/sys/unix is not a
	// direct dependency of the benchmark, and syscall lacks a wrapper.
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, 4, 0, 0); errno != 0 {
		return fmt.Errorf("drop %s from the page cache: %w", path, errno)
	}
	return nil
}

// copyFile writes an executable copy of src to dst and syncs it: dirty
// pages cannot be dropped from the page cache.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
