package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/internal/testutil/fakecsi"
)

func TestRealMainBadFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "csi-provisioner: flag provided but not defined: --bogus\n"},
		{[]string{"--feature-gates=VolumeAttributesClass=maybe"}, "csi-provisioner: invalid value \"VolumeAttributesClass=maybe\" for flag --feature-gates: invalid value of VolumeAttributesClass=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(append([]string{"/csi-provisioner"}, tc.args...), &stdout, &stderr)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1", tc.args, code)
		}
		if stderr.String() != tc.want {
			t.Errorf("%v: stderr %q, want %q", tc.args, stderr.String(), tc.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: unexpected stdout %q", tc.args, stdout.String())
		}
	}
}

func TestRealMainVersionAndHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"/csi-provisioner", "--version"}, &stdout, &stderr); code != 0 {
		t.Errorf("--version: exit %d", code)
	}
	if got := stdout.String(); got != "/csi-provisioner "+version+"\n" {
		t.Errorf("--version printed %q", got)
	}

	stdout.Reset()
	if code := realMain([]string{"/csi-provisioner", "--help"}, &stdout, &stderr); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
	for _, want := range []string{"--csi-address string", "--feature-gates", "PVProtection=true|false (ALPHA - default=false)", "--v value"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// buildBinary builds the command with a version stamped in, as release
// builds do.
func buildBinary(t *testing.T, version string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "csi-provisioner")
	args := append([]string{"build"}, testBuildFlags()...)
	cmd := exec.Command("go", append(args, "-ldflags", "-X main.version="+version, "-o", bin, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// testBuildFlags are the flags this test binary was built with that decide
// how its dependencies compile (-race, -trimpath): building the binary with
// them reuses the packages the test build compiled, where a plain go build
// would compile the whole sidecar once more.
func testBuildFlags() []string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var flags []string
	for _, s := range info.Settings {
		if (s.Key == "-race" || s.Key == "-trimpath") && s.Value == "true" {
			flags = append(flags, s.Key)
		}
	}
	return flags
}

func TestBinary(t *testing.T) {
	bin := buildBinary(t, "v9.8.7-test")

	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	if got := string(out); got != bin+" v9.8.7-test\n" {
		t.Errorf("--version printed %q", got)
	}

	cmd := exec.Command(bin, "--csi-address=/csi/csi.sock", "--timeout=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("bad flag: got %v, want exit status 1", err)
	}
	if got := stderr.String(); got != "csi-provisioner: --timeout must be positive, got 0s\n" {
		t.Errorf("stderr %q", got)
	}

	t.Run("SIGTERM", func(t *testing.T) {
		api := newFakeAPIServer(t)
		sock, stopDriver := fakecsi.Serve(t, provisioningDriver())
		cmd := exec.Command(bin, "--csi-address="+sock, "--kubeconfig="+writeKubeconfig(t, api.URL), "--v=2")
		cmd.Env = append(os.Environ(), "KUBECONFIG=")
		var logs bytes.Buffer
		cmd.Stderr = &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		defer func() {
			_ = cmd.Process.Kill()
			stopDriver()
		}()

		eventually(t, "the controllers to watch claims", func() bool { return api.sawWatch("persistentvolumeclaims") })
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("exit after SIGTERM: %v\n%s", err, logs.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no exit after SIGTERM\n%s", logs.String())
		}
	})
	t.Run("JSON logs", func(t *testing.T) {
		api := newFakeAPIServer(t)
		sock, stopDriver := fakecsi.Serve(t, provisioningDriver())
		defer stopDriver()
		// A gate upstream accepts to no effect, to see its warning logged.
		cmd := exec.Command(bin, "--csi-address="+sock, "--kubeconfig="+writeKubeconfig(t, api.URL), "--logging-format=json", "--v=2",
			"--feature-gates=WatchList=false")
		cmd.Env = append(os.Environ(), "KUBECONFIG=")
		var logs, stdout bytes.Buffer
		cmd.Stderr, cmd.Stdout = &logs, &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill() }()
		eventually(t, "the controllers to watch claims", func() bool { return api.sawWatch("persistentvolumeclaims") })
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}

		lines := strings.Split(strings.TrimSpace(logs.String()+stdout.String()), "\n")
		var messages []string
		for _, line := range lines {
			var entry struct {
				Msg string  `json:"msg"`
				TS  float64 `json:"ts"`
			}
			if err := json.Unmarshal([]byte(line), &entry); err != nil || entry.Msg == "" || entry.TS == 0 {
				t.Errorf("not a JSON log line: %q", line)
				continue
			}
			messages = append(messages, entry.Msg)
		}
		for _, want := range []string{"Starting csi-provisioner", "Stopped",
			"Warning: Feature gates of the Kubernetes API server, accepted as upstream accepts them, have no effect"} {
			if !slices.Contains(messages, want) {
				t.Errorf("no %q among the JSON lines %q", want, messages)
			}
		}
	})
}
