package devices

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// tree is a fake host filesystem in a temporary directory, seen through a
// RootedFS. Device nodes are empty regular files: nothing here needs root.
type tree struct {
	t    testing.TB
	root string
	fs   RootedFS
}

func newTree(t testing.TB) *tree {
	t.Helper()
	root := t.TempDir()
	tr := &tree{t: t, root: root, fs: RootedFS{Root: root}}
	tr.file("/proc/self/mountinfo", "")
	return tr
}

func (tr *tree) host(p string) string { return filepath.Join(tr.root, p) }

func (tr *tree) mkdir(p string) {
	tr.t.Helper()
	if err := os.MkdirAll(tr.host(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) file(p, content string) {
	tr.t.Helper()
	tr.mkdir(filepath.Dir(p))
	if err := os.WriteFile(tr.host(p), []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

// link creates p -> target, the target stored verbatim (an absolute target
// is resolved under the tree's root by RootedFS).
func (tr *tree) link(p, target string) {
	tr.t.Helper()
	tr.mkdir(filepath.Dir(p))
	if err := os.Symlink(target, tr.host(p)); err != nil {
		tr.t.Fatal(err)
	}
}

// device creates the node of kname and its sysfs entry (dev, empty holders).
func (tr *tree) device(kname, majMin string) {
	tr.t.Helper()
	tr.file(kname, "")
	base := filepath.Base(kname)
	tr.file("/sys/class/block/"+base+"/dev", majMin+"\n")
	tr.mkdir("/sys/class/block/" + base + "/holders")
}

// devices creates nodes for every device of a list, and /dev/mapper style
// links for devices whose Name differs from their KName.
func (tr *tree) devices(devs []Device) {
	tr.t.Helper()
	for i, d := range devs {
		tr.device(d.KName, fmt.Sprintf("%d:%d", 8, i*16))
		if d.Name != d.KName {
			tr.link(d.Name, "../"+filepath.Base(d.KName))
		}
	}
}

func (tr *tree) mountinfo(lines ...string) {
	tr.t.Helper()
	tr.file("/proc/self/mountinfo", strings.Join(lines, "\n")+"\n")
}

func (tr *tree) exists(p string) bool {
	_, err := os.Lstat(tr.host(p))
	return err == nil
}

// fakeRunner answers commands from a table keyed by the full command line.
// blkid on an unknown device answers "nothing found" (exit 2), as the real
// one does for a blank device; any other unknown command is an error.
type fakeRunner struct {
	mu        sync.Mutex
	responses map[string]fakeResponse
	calls     []string
}

type fakeResponse struct {
	out string
	err error
}

func newFakeRunner() *fakeRunner {
	return &fakeRunner{responses: map[string]fakeResponse{}}
}

func (f *fakeRunner) on(cmdline, out string, err error) *fakeRunner {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.responses[cmdline] = fakeResponse{out: out, err: err}
	return f
}

func (f *fakeRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	key := strings.Join(append([]string{name}, args...), " ")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, key)
	if r, ok := f.responses[key]; ok {
		return []byte(r.out), r.err
	}
	if name == "blkid" {
		return nil, exitErr(name, 2, "")
	}
	return nil, fmt.Errorf("fakeRunner: unexpected command %q", key)
}

func (f *fakeRunner) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func exitErr(name string, code int, stderr string) error {
	return &CommandError{Name: name, ExitCode: code, Stderr: stderr, Err: fmt.Errorf("exit status %d", code)}
}

// fakeOpener answers O_EXCL opens from a table; unknown paths open fine.
type fakeOpener struct {
	mu     sync.Mutex
	errs   map[string]error
	opened []string
}

func (f *fakeOpener) OpenExclusive(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened = append(f.opened, p)
	return f.errs[p]
}

func busy(p string) error { return fmt.Errorf("open %s: %w", p, ErrBusy) }

func eio(p string) error { return fmt.Errorf("open %s: %w", p, syscall.EIO) }

// checker returns a Checker over the tree with blkid answered by r.
func (tr *tree) checker(r Runner, o *fakeOpener) *Checker {
	if o == nil {
		o = &fakeOpener{}
	}
	return &Checker{FS: tr.fs, Prober: BlkidProber{Runner: r}, Opener: o}
}

func readSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }
