package csiconn

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"
)

// socketCheckInterval matches csi-lib-utils' "Still connecting" period.
const socketCheckInterval = 10 * time.Second

// SocketAccessProblem explains why this process can never connect to the
// socket at address, or returns nil when it can (or when the socket does not
// exist yet: the driver may still be starting). Connecting to a unix socket
// needs write permission on it; upstream's image runs as root, ours as 65532,
// so a driver that creates its socket as root with mode 0755 is reachable by
// upstream's sidecar and not by ours, and csi-lib-utils only says "Still
// connecting".
func SocketAccessProblem(address string) error {
	path := strings.TrimPrefix(address, "unix://")
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot stat CSI socket %s as uid %d: %w", path, os.Getuid(), err)
	}
	if err := unix.Access(path, unix.W_OK); err == nil || !errors.Is(err, unix.EACCES) {
		return nil
	}
	owner := "unknown"
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		owner = fmt.Sprintf("%d:%d", st.Uid, st.Gid)
	}
	return fmt.Errorf("CSI socket %s (owner %s, mode %v) is not writable by this sidecar (uid %d, gid %d), so it can never connect: "+
		"run the sidecar container as the driver's user (securityContext.runAsUser; upstream's image runs as root, this one as 65532), "+
		"or have the driver create the socket writable by a group the sidecar is in (supplementalGroups)",
		path, owner, info.Mode().Perm(), os.Getuid(), os.Getgid())
}

// reportSocketAccess logs SocketAccessProblem's answer at start and then every
// socketCheckInterval until ctx is done.
func reportSocketAccess(ctx context.Context, address string) {
	logger := klog.FromContext(ctx)
	ticker := time.NewTicker(socketCheckInterval)
	defer ticker.Stop()
	for {
		if err := SocketAccessProblem(address); err != nil {
			logger.Error(err, "Cannot connect to the CSI driver")
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
