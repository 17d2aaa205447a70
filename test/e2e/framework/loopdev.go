package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Loop devices give the local-volume tests real block devices without
// touching a disk of the machine. Every function here refuses a device that
// this process did not create (and whose backing file is not the one it
// created), so a mistake in a test can never format, wipe or detach
// someone else's device.

// loopCommandTimeout bounds each losetup, mkfs and blkid run.
const loopCommandTimeout = 30 * time.Second

var (
	loopMu sync.Mutex
	// loopDevices maps each loop device this process attached to its
	// backing file.
	loopDevices = map[string]string{}
)

// CreateLoopDevice creates a sparse file of size bytes in a new temporary
// directory and attaches it to a free loop device (losetup --find --show).
// It returns the device (/dev/loopN) and the backing file. It needs root.
// Release it with DetachLoopDevice and remove filepath.Dir(backingFile).
func CreateLoopDevice(size int64) (dev, backingFile string, err error) {
	if os.Geteuid() != 0 {
		return "", "", errors.New("loop devices need root: run the test as root (losetup attaches devices, blkid -p and mkfs open them)")
	}
	if size <= 0 || size%512 != 0 {
		return "", "", fmt.Errorf("loop device size %d: must be a positive multiple of 512", size)
	}
	dir, err := os.MkdirTemp("", "e2e-loop-")
	if err != nil {
		return "", "", err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	backingFile = filepath.Join(dir, "disk.img")
	f, err := os.OpenFile(backingFile, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", "", err
	}
	// Sparse: only what is written takes space.
	if err := f.Truncate(size); err != nil {
		f.Close()
		return "", "", err
	}
	if err := f.Close(); err != nil {
		return "", "", err
	}
	out, err := runTool("losetup", "--find", "--show", backingFile)
	if err != nil {
		return "", "", err
	}
	dev = strings.TrimSpace(out)
	if !strings.HasPrefix(dev, "/dev/loop") {
		return "", "", fmt.Errorf("losetup --find --show %s printed %q, not a loop device", backingFile, out)
	}
	loopMu.Lock()
	loopDevices[dev] = backingFile
	loopMu.Unlock()
	// Check the claim right away: the device must be backed by our file.
	if err := checkOwnLoopDevice(dev); err != nil {
		return "", "", err
	}
	return dev, backingFile, nil
}

// DetachLoopDevice detaches a loop device made by CreateLoopDevice
// (losetup -d). It does not remove the backing file. Detaching a device
// already detached is not an error.
func DetachLoopDevice(dev string) error {
	loopMu.Lock()
	backing, ok := loopDevices[dev]
	loopMu.Unlock()
	if !ok {
		return fmt.Errorf("refusing to detach %s: not created by this process", dev)
	}
	cur, err := loopBackingFile(dev)
	if err != nil {
		return err
	}
	if cur == "" {
		// Detached already (by us earlier); nothing to do.
		forgetLoopDevice(dev)
		return nil
	}
	if cur != backing {
		return fmt.Errorf("refusing to detach %s: it is backed by %q now, not by our %q", dev, cur, backing)
	}
	if _, err := runTool("losetup", "-d", dev); err != nil {
		return err
	}
	forgetLoopDevice(dev)
	return nil
}

func forgetLoopDevice(dev string) {
	loopMu.Lock()
	delete(loopDevices, dev)
	loopMu.Unlock()
}

// MkfsExt4 writes an ext4 filesystem onto a loop device made by
// CreateLoopDevice (mkfs.ext4 -q -F), as a pod using the volume would have.
func MkfsExt4(dev string) error {
	if err := checkOwnLoopDevice(dev); err != nil {
		return err
	}
	_, err := runTool("mkfs.ext4", "-q", "-F", dev)
	return err
}

// BlockSignature returns what blkid -p finds on a loop device made by
// CreateLoopDevice (blkid -p -o export: TYPE, UUID, ...), or an empty map
// when it finds no signature (exit status 2).
func BlockSignature(dev string) (map[string]string, error) {
	if err := checkOwnLoopDevice(dev); err != nil {
		return nil, err
	}
	out, err := runTool("blkid", "-p", "-o", "export", dev)
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() == 2 {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	sig := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			sig[k] = v
		}
	}
	delete(sig, "DEVNAME")
	return sig, nil
}

// checkOwnLoopDevice fails unless dev was attached by CreateLoopDevice and
// is still backed by the file it created.
func checkOwnLoopDevice(dev string) error {
	loopMu.Lock()
	backing, ok := loopDevices[dev]
	loopMu.Unlock()
	if !ok {
		return fmt.Errorf("refusing to touch %s: not a loop device created by this process", dev)
	}
	cur, err := loopBackingFile(dev)
	if err != nil {
		return err
	}
	if cur != backing {
		return fmt.Errorf("refusing to touch %s: it is backed by %q, not by our %q", dev, cur, backing)
	}
	return nil
}

// loopBackingFile reads the backing file of a loop device from sysfs; ""
// means the device is not attached.
func loopBackingFile(dev string) (string, error) {
	name := filepath.Base(dev)
	data, err := os.ReadFile(filepath.Join("/sys/block", name, "loop", "backing_file"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// runTool runs a command with a timeout and returns its stdout; the error
// includes stderr.
func runTool(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), loopCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
