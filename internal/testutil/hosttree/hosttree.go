// Package hosttree is a fake host filesystem for the tests of what reads
// a node's /dev, /sys and /proc: a directory of the test's own that stands
// for the host's root. Device nodes are empty regular files, so that
// nothing needs root.
package hosttree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tree is a fake host root. Its paths are the host's ("/dev/sdb"); the
// tree keeps them under Root. A Tree fails the test it was made for on any
// error.
type Tree struct {
	t testing.TB
	// Root is the directory that stands for the host's "/".
	Root string
}

// New is an empty tree in a temporary directory of t.
func New(t testing.TB) *Tree {
	t.Helper()
	return &Tree{t: t, Root: t.TempDir()}
}

// Path is where the host path p is in the tree.
func (tr *Tree) Path(p string) string { return filepath.Join(tr.Root, p) }

// Mkdir makes the directory p and its parents.
func (tr *Tree) Mkdir(p string) {
	tr.t.Helper()
	if err := os.MkdirAll(tr.Path(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
}

// File writes the file p, and makes its directory.
func (tr *Tree) File(p, content string) {
	tr.t.Helper()
	tr.Mkdir(filepath.Dir(p))
	if err := os.WriteFile(tr.Path(p), []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

// Symlink makes p a link to target, stored as given: an absolute target is
// the host's, which a reader rooted at the tree resolves under Root.
func (tr *Tree) Symlink(p, target string) {
	tr.t.Helper()
	tr.Mkdir(filepath.Dir(p))
	if err := os.Symlink(target, tr.Path(p)); err != nil {
		tr.t.Fatal(err)
	}
}

// Readlink is the target of the link p, "" if p is not a link.
func (tr *Tree) Readlink(p string) string {
	target, err := os.Readlink(tr.Path(p))
	if err != nil {
		return ""
	}
	return target
}

// Exists tells whether p exists, a dangling link included.
func (tr *Tree) Exists(p string) bool {
	_, err := os.Lstat(tr.Path(p))
	return err == nil
}

// BlockDevice makes the node of the block device kname ("/dev/sdb") and
// its sysfs entry: its major:minor numbers and no holders.
func (tr *Tree) BlockDevice(kname, majMin string) {
	tr.t.Helper()
	tr.File(kname, "")
	base := filepath.Base(kname)
	tr.File("/sys/class/block/"+base+"/dev", majMin+"\n")
	tr.Mkdir("/sys/class/block/" + base + "/holders")
}

// Mountinfo writes /proc/self/mountinfo, one line a mount.
func (tr *Tree) Mountinfo(lines ...string) {
	tr.t.Helper()
	tr.File("/proc/self/mountinfo", strings.Join(lines, "\n")+"\n")
}
