package devices

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// DevDir is the only directory whose contents this package will ever treat as
// a device, select, link to or wipe.
const DevDir = "/dev"

var (
	// ErrNotUnderDev: a device path is relative, contains "..", or does not
	// resolve to something strictly under /dev.
	ErrNotUnderDev = errors.New("path does not resolve to a device under " + DevDir)
	// ErrInvalidName: a symlink name or storage class name is empty or
	// contains "/", "..", or a NUL byte.
	ErrInvalidName = errors.New("invalid name")
	// ErrRootEscape: the symlink root is not an absolute path, or a folder
	// under it resolves outside it.
	ErrRootEscape = errors.New("path escapes the symlink root")
	// ErrSymlinkConflict: a different symlink already exists where a link
	// was to be created.
	ErrSymlinkConflict = errors.New("a different symlink already exists")
	// ErrNotSymlink: something other than a symlink is where a link is
	// expected; it is never replaced or removed.
	ErrNotSymlink = errors.New("not a symlink")
	// ErrSignatureRemains: blkid still finds a signature after a wipe.
	ErrSignatureRemains = errors.New("signature still present after wipe")
)

// ResolveDevicePath resolves every symlink in p and returns the path it
// names, which is strictly under /dev (a /dev/disk/by-id link gives the
// kernel node, /dev/sdb). It refuses, with an error wrapping ErrNotUnderDev,
// a relative path, a path with a ".." element, and any path that resolves
// elsewhere, such as a link into /etc. A path that does not exist is an error
// (not wrapping ErrNotUnderDev).
func ResolveDevicePath(fsys FS, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q: not absolute: %w", p, ErrNotUnderDev)
	}
	// A device path never needs "..": refuse it rather than reason about it.
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", fmt.Errorf("%q: contains \"..\": %w", p, ErrNotUnderDev)
		}
	}
	resolved, err := fsys.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("resolving %q: %w", p, err)
	}
	if !isUnderDev(resolved) {
		return "", fmt.Errorf("%q resolves to %q: %w", p, resolved, ErrNotUnderDev)
	}
	return resolved, nil
}

// isUnderDev reports whether the clean absolute path p is strictly below /dev.
func isUnderDev(p string) bool {
	return filepath.IsAbs(p) && filepath.Clean(p) == p && strings.HasPrefix(p, DevDir+"/")
}

// ValidateName checks a single path element that comes from an API object (a
// storage class name, a symlink name): it must not be empty and must not
// contain "/", "..", or NUL, so that joining it to a folder can never leave
// that folder.
func ValidateName(kind, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s is empty: %w", kind, ErrInvalidName)
	case name == ".":
		return fmt.Errorf("%s %q: %w", kind, name, ErrInvalidName)
	case strings.Contains(name, "/"), strings.Contains(name, ".."), strings.ContainsRune(name, 0):
		return fmt.Errorf("%s %q must not contain \"/\", \"..\" or NUL: %w", kind, name, ErrInvalidName)
	}
	return nil
}
