package devices

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// SymlinkPath returns <root>/<storageClass>/<name>, the path a local PV
// names, after checking root (absolute, clean, not "/") and both names
// (ValidateName). It touches no file.
func SymlinkPath(root, storageClass, name string) (string, error) {
	if !filepath.IsAbs(root) || filepath.Clean(root) != root || root == "/" {
		return "", fmt.Errorf("symlink root %q must be a clean absolute path other than /: %w", root, ErrRootEscape)
	}
	if err := ValidateName("storage class name", storageClass); err != nil {
		return "", err
	}
	if err := ValidateName("symlink name", name); err != nil {
		return "", err
	}
	return filepath.Join(root, storageClass, name), nil
}

// classDir checks the folder <root>/<storageClass>, creating it (and root)
// when create is set, and refuses it when it resolves anywhere but inside
// root: a folder replaced by a symlink to /etc must not receive links, nor
// have links removed from it. root itself may be a symlink (/mnt is one on
// some distributions). exists is false when the folder is absent and create
// is not set.
func classDir(fsys FS, root, storageClass string, create bool) (dir string, exists bool, err error) {
	dir = filepath.Join(root, storageClass)
	fi, err := fsys.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return dir, false, nil
		}
		if err := fsys.MkdirAll(dir, 0o755); err != nil {
			return "", false, err
		}
	case err != nil:
		return "", false, err
	case fi.Mode()&fs.ModeSymlink != 0:
		// Checked before anything follows it: MkdirAll through a dangling
		// link would create the folder at the link's target.
		return "", false, fmt.Errorf("%s is a symlink: %w", dir, ErrRootEscape)
	case !fi.IsDir():
		return "", false, fmt.Errorf("%s is not a directory", dir)
	}
	resolvedRoot, err := fsys.EvalSymlinks(root)
	if err != nil {
		return "", false, err
	}
	resolvedDir, err := fsys.EvalSymlinks(dir)
	if err != nil {
		return "", false, err
	}
	// After the Lstat above this only fails if the folder was swapped for a
	// symlink in between; cheap to check, so checked.
	if resolvedDir != filepath.Join(resolvedRoot, storageClass) {
		return "", false, fmt.Errorf("%s resolves to %s, outside %s: %w", dir, resolvedDir, resolvedRoot, ErrRootEscape)
	}
	return dir, true, nil
}

// EnsureSymlink makes <root>/<storageClass>/<name> a symlink to target,
// creating the folders it needs. target must resolve under /dev (normally a
// /dev/disk/by-id link from StableName) and is stored as given, not
// resolved, so the link follows the device across reboots. It is
// idempotent: an existing link to target is success. An existing link to
// anything else is an error wrapping ErrSymlinkConflict that names both
// targets, and anything that is not a symlink an error wrapping
// ErrNotSymlink: neither is ever replaced.
func EnsureSymlink(fsys FS, root, storageClass, name, target string) error {
	link, err := SymlinkPath(root, storageClass, name)
	if err != nil {
		return err
	}
	if _, err := ResolveDevicePath(fsys, target); err != nil {
		return fmt.Errorf("symlink target: %w", err)
	}
	if _, _, err := classDir(fsys, root, storageClass, true); err != nil {
		return err
	}
	// Two rounds: if another writer creates the link between our Lstat and
	// Symlink, look at what it made rather than fail.
	for round := 0; ; round++ {
		fi, err := fsys.Lstat(link)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			err := fsys.Symlink(target, link)
			if err == nil {
				return nil
			}
			if errors.Is(err, fs.ErrExist) && round == 0 {
				continue
			}
			return fmt.Errorf("creating symlink %s -> %s: %w", link, target, err)
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink == 0:
			return fmt.Errorf("%s exists (mode %v): %w", link, fi.Mode(), ErrNotSymlink)
		}
		got, err := fsys.Readlink(link)
		if err != nil {
			return err
		}
		if filepath.Clean(got) == filepath.Clean(target) {
			return nil
		}
		return fmt.Errorf("%s points to %s, not %s: %w", link, got, target, ErrSymlinkConflict)
	}
}

// RemoveSymlink removes <root>/<storageClass>/<name> if it is a symlink. It
// is idempotent (nothing there is success) and never removes a regular file
// or a directory (ErrNotSymlink). It does not look at the link's target.
func RemoveSymlink(fsys FS, root, storageClass, name string) error {
	link, err := SymlinkPath(root, storageClass, name)
	if err != nil {
		return err
	}
	if _, exists, err := classDir(fsys, root, storageClass, false); err != nil || !exists {
		return err
	}
	fi, err := fsys.Lstat(link)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink == 0:
		return fmt.Errorf("%s (mode %v): %w", link, fi.Mode(), ErrNotSymlink)
	}
	if err := fsys.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing symlink %s: %w", link, err)
	}
	return nil
}
