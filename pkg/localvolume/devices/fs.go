package devices

import (
	"io/fs"
	"os"
	"path/filepath"
)

// FS is the filesystem as this package sees it. Paths are absolute host
// paths (/dev/sda, /sys/class/block/sda/dev, /mnt/local-storage/...); an
// implementation may map them elsewhere, as RootedFS does for tests.
type FS interface {
	// EvalSymlinks resolves every symlink in path, like filepath.EvalSymlinks.
	EvalSymlinks(path string) (string, error)
	Lstat(path string) (fs.FileInfo, error)
	Readlink(path string) (string, error)
	// Symlink creates newname pointing at oldname, like os.Symlink.
	Symlink(oldname, newname string) error
	Remove(path string) error
	MkdirAll(path string, perm fs.FileMode) error
	ReadDir(path string) ([]fs.DirEntry, error)
	ReadFile(path string) ([]byte, error)
}

// OSFS is the host filesystem.
type OSFS struct{}

var _ FS = OSFS{}

func (OSFS) EvalSymlinks(path string) (string, error)     { return filepath.EvalSymlinks(path) }
func (OSFS) Lstat(path string) (fs.FileInfo, error)       { return os.Lstat(path) }
func (OSFS) Readlink(path string) (string, error)         { return os.Readlink(path) }
func (OSFS) Symlink(oldname, newname string) error        { return os.Symlink(oldname, newname) }
func (OSFS) Remove(path string) error                     { return os.Remove(path) }
func (OSFS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }
func (OSFS) ReadDir(path string) ([]fs.DirEntry, error)   { return os.ReadDir(path) }
func (OSFS) ReadFile(path string) ([]byte, error)         { return os.ReadFile(path) }
