package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRealMainVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	// No node name: --version must not need one.
	if code := realMain([]string{"/local-volume-agent", "--version"}, &stdout, &stderr, env(nil)); code != 0 {
		t.Errorf("--version: exit %d, stderr %q", code, stderr.String())
	}
	if got := stdout.String(); got != "/local-volume-agent "+version+"\n" {
		t.Errorf("--version printed %q", got)
	}
}

func TestRealMainHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"/local-volume-agent", "--help"}, &stdout, &stderr, env(nil)); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
	for _, want := range []string{"--node-name string", `(default "/mnt/local-storage")`, `(default "/proc/1/mountinfo")`, "--command-timeout duration", "--kube-api-qps value", "--v value"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestRealMainBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "local-volume-agent: --node-name is required (or set the NODE_NAME environment variable)\n"},
		{[]string{"--node-name=n", "--bogus"}, "local-volume-agent: flag provided but not defined: --bogus\n"},
		{[]string{"--node-name=n", "--symlink-root=relative"}, "local-volume-agent: --symlink-root must be an absolute path other than /, got \"relative\"\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(append([]string{"/local-volume-agent"}, tc.args...), &stdout, &stderr, env(nil))
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
