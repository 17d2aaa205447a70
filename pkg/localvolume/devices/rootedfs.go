package devices

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// RootedFS serves absolute paths from under Root, as if Root were "/": the
// path /dev/sda is the file Root/dev/sda. Symlinks are resolved by RootedFS
// itself, component by component, so a link with an absolute target
// (/dev/disk/by-id/x -> /dev/sda) and a ".." that climbs above Root both stay
// inside Root, as under chroot. Tests build a fake /dev, /sys and /proc in
// t.TempDir() and hand the package a RootedFS; no host path outside Root is
// ever read or written through it.
//
// Paths given to and returned by RootedFS are the virtual ones ("/dev/sda"),
// and so are the paths in its errors. Relative paths are refused.
type RootedFS struct {
	Root string
}

var _ FS = RootedFS{}

// maxSymlinks is Linux's MAXSYMLINKS: past it resolution fails with ELOOP.
const maxSymlinks = 40

// clean checks that p is absolute and returns it cleaned.
func (r RootedFS) clean(op, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", &fs.PathError{Op: op, Path: p, Err: errors.New("RootedFS needs an absolute path")}
	}
	return filepath.Clean(p), nil
}

func (r RootedFS) host(virtual string) string {
	return filepath.Join(r.Root, virtual)
}

// resolve follows every symlink in the absolute, clean virtual path p and
// returns the virtual path it names. With allowMissing, a missing component
// ends resolution and the rest of p is appended as is (nothing below a
// missing directory can be a symlink); MkdirAll needs that.
func (r RootedFS) resolve(op, p string, allowMissing bool) (string, error) {
	resolved := "/"
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	links := 0
	for len(rest) > 0 {
		comp := rest[0]
		rest = rest[1:]
		switch comp {
		case "", ".":
			continue
		case "..":
			// filepath.Dir("/") is "/": ".." at the root stays at the root.
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, comp)
		fi, err := os.Lstat(r.host(next))
		if err != nil {
			if allowMissing && errors.Is(err, fs.ErrNotExist) {
				return filepath.Join(append([]string{next}, rest...)...), nil
			}
			return "", r.pathErr(op, p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(rest) > 0 && !fi.IsDir() {
				return "", &fs.PathError{Op: op, Path: p, Err: syscall.ENOTDIR}
			}
			resolved = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", &fs.PathError{Op: op, Path: p, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(r.host(next))
		if err != nil {
			return "", r.pathErr(op, p, err)
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved, nil
}

// hostNoFollow maps p to a host path without following its last component,
// for Lstat, Readlink, Symlink and Remove.
func (r RootedFS) hostNoFollow(op, p string) (string, error) {
	c, err := r.clean(op, p)
	if err != nil {
		return "", err
	}
	if c == "/" {
		return r.host(c), nil
	}
	dir, err := r.resolve(op, filepath.Dir(c), true)
	if err != nil {
		return "", err
	}
	return r.host(filepath.Join(dir, filepath.Base(c))), nil
}

// hostFollow maps p to a host path with every symlink resolved.
func (r RootedFS) hostFollow(op, p string, allowMissing bool) (string, error) {
	c, err := r.clean(op, p)
	if err != nil {
		return "", err
	}
	v, err := r.resolve(op, c, allowMissing)
	if err != nil {
		return "", err
	}
	return r.host(v), nil
}

// pathErr rewrites the host path in err into the virtual path p.
func (r RootedFS) pathErr(op, p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: p, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: op, Path: p, Err: le.Err}
	}
	return fmt.Errorf("%s %s: %w", op, p, err)
}

func (r RootedFS) EvalSymlinks(p string) (string, error) {
	c, err := r.clean("evalsymlinks", p)
	if err != nil {
		return "", err
	}
	return r.resolve("evalsymlinks", c, false)
}

func (r RootedFS) Lstat(p string) (fs.FileInfo, error) {
	h, err := r.hostNoFollow("lstat", p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(h)
	if err != nil {
		return nil, r.pathErr("lstat", p, err)
	}
	return fi, nil
}

func (r RootedFS) Readlink(p string) (string, error) {
	h, err := r.hostNoFollow("readlink", p)
	if err != nil {
		return "", err
	}
	t, err := os.Readlink(h)
	if err != nil {
		return "", r.pathErr("readlink", p, err)
	}
	return t, nil
}

// Symlink stores oldname verbatim: an absolute target is later resolved
// under Root by this RootedFS.
func (r RootedFS) Symlink(oldname, newname string) error {
	h, err := r.hostNoFollow("symlink", newname)
	if err != nil {
		return err
	}
	if err := os.Symlink(oldname, h); err != nil {
		return r.pathErr("symlink", newname, err)
	}
	return nil
}

func (r RootedFS) Remove(p string) error {
	h, err := r.hostNoFollow("remove", p)
	if err != nil {
		return err
	}
	if err := os.Remove(h); err != nil {
		return r.pathErr("remove", p, err)
	}
	return nil
}

func (r RootedFS) MkdirAll(p string, perm fs.FileMode) error {
	h, err := r.hostFollow("mkdir", p, true)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(h, perm); err != nil {
		return r.pathErr("mkdir", p, err)
	}
	return nil
}

func (r RootedFS) ReadDir(p string) ([]fs.DirEntry, error) {
	h, err := r.hostFollow("readdir", p, false)
	if err != nil {
		return nil, err
	}
	es, err := os.ReadDir(h)
	if err != nil {
		return nil, r.pathErr("readdir", p, err)
	}
	return es, nil
}

func (r RootedFS) ReadFile(p string) ([]byte, error) {
	h, err := r.hostFollow("readfile", p, false)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(h)
	if err != nil {
		return nil, r.pathErr("readfile", p, err)
	}
	return b, nil
}
