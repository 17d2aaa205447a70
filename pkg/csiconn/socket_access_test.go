package csiconn

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSocketThatDoesNotExistYetIsNoProblem(t *testing.T) {
	if err := SocketAccessProblem("unix://" + filepath.Join(t.TempDir(), "csi.sock")); err != nil {
		t.Errorf("a socket the driver has not created yet: %v", err)
	}
}

func TestSocketOfOurOwnUserIsNoProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "csi.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := SocketAccessProblem(path); err != nil {
		t.Errorf("a socket this process created: %v", err)
	}
}

// A driver running as root creates a socket with mode 0755; the sidecar as
// 65532 (the image's user) can neither connect nor, without this check, tell
// why. Needs root and setpriv to play both users.
func TestRootOwnedSocketIsExplainedToANonRootSidecar(t *testing.T) {
	if os.Getenv("SOCKET_ACCESS_CHILD") != "" {
		childReportsSocketAccess(os.Getenv("SOCKET_ACCESS_CHILD"))
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if os.Getuid() != 0 || err != nil {
		t.Skip("needs root and setpriv to create a root socket and connect as uid 65532")
	}
	dir, err := os.MkdirTemp("", "csi-socket-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "csi.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(setpriv, "--reuid=65532", "--regid=65532", "--clear-groups",
		os.Args[0], "-test.run=^TestRootOwnedSocketIsExplainedToANonRootSidecar$")
	cmd.Env = append(os.Environ(), "SOCKET_ACCESS_CHILD=unix://"+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child as uid 65532: %v\n%s", err, out)
	}
	for _, want := range []string{"dial: permission denied", "owner 0:0", "-rwxr-xr-x", "uid 65532", "securityContext.runAsUser"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}

// childReportsSocketAccess shows, as the unprivileged user, both what a
// connection attempt meets and what SocketAccessProblem says about it.
func childReportsSocketAccess(address string) {
	conn, err := net.Dial("unix", strings.TrimPrefix(address, "unix://"))
	if err == nil {
		conn.Close()
		println("dial: connected")
	} else if errors.Is(err, fs.ErrPermission) {
		println("dial: permission denied")
	} else {
		println("dial:", err.Error())
	}
	if problem := SocketAccessProblem(address); problem != nil {
		println("problem:", problem.Error())
	} else {
		println("problem: none")
	}
}
