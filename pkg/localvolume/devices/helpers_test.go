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

	"github.com/csi-protect/external-provisioner/internal/testutil/hosttree"
)

// tree is a fake host filesystem, seen through a RootedFS.
type tree struct {
	*hosttree.Tree
	t  testing.TB
	fs RootedFS
}

func newTree(t testing.TB) *tree {
	t.Helper()
	ht := hosttree.New(t)
	tr := &tree{Tree: ht, t: t, fs: RootedFS{Root: ht.Root}}
	tr.File("/proc/self/mountinfo", "")
	return tr
}

// devices creates nodes for every device of a list, and /dev/mapper style
// links for devices whose Name differs from their KName.
func (tr *tree) devices(devs []Device) {
	tr.t.Helper()
	for i, d := range devs {
		tr.BlockDevice(d.KName, fmt.Sprintf("%d:%d", 8, i*16))
		if d.Name != d.KName {
			tr.Symlink(d.Name, "../"+filepath.Base(d.KName))
		}
	}
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
