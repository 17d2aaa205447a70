package main

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
)

// env returns a getenv that knows only vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestParseFlagsDefaults(t *testing.T) {
	cfg, err := parseFlags([]string{"--node-name=node-1"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		nodeName:       "node-1",
		symlinkRoot:    "/mnt/local-storage",
		mountInfoPath:  "/proc/1/mountinfo",
		kube:           cmdutil.KubeOptions{QPS: 5, Burst: 10},
		commandTimeout: 2 * time.Minute,
		resync:         time.Minute,
	}
	if *cfg != want {
		t.Errorf("got %+v, want %+v", *cfg, want)
	}
}

func TestParseFlagsAll(t *testing.T) {
	cfg, err := parseFlags([]string{
		"--node-name=n", "--symlink-root=/var/lib/local/", "--kubeconfig=/k", "--master=https://m",
		"--kube-api-qps=2.5", "--kube-api-burst=7", "--http-endpoint=:8080",
		"--mountinfo-path=/host/proc/1/mountinfo", "--command-timeout=30s", "--resync=5m", "--v=4",
	}, env(map[string]string{"NODE_NAME": "from-env"}))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		nodeName: "n", symlinkRoot: "/var/lib/local", httpEndpoint: ":8080",
		mountInfoPath: "/host/proc/1/mountinfo", commandTimeout: 30 * time.Second, resync: 5 * time.Minute,
		kube: cmdutil.KubeOptions{Kubeconfig: "/k", Master: "https://m", QPS: 2.5, Burst: 7},
	}
	if *cfg != want {
		t.Errorf("got %+v, want %+v", *cfg, want)
	}
}

func TestParseFlagsNodeNameFromEnv(t *testing.T) {
	cfg, err := parseFlags(nil, env(map[string]string{"NODE_NAME": "node-env"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.nodeName != "node-env" {
		t.Errorf("node name %q, want node-env", cfg.nodeName)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing node name", nil, "--node-name is required (or set the NODE_NAME environment variable)"},
		{"empty node name", []string{"--node-name="}, "--node-name is required"},
		{"relative symlink root", []string{"--node-name=n", "--symlink-root=mnt/local"}, `--symlink-root must be an absolute path other than /, got "mnt/local"`},
		{"root symlink root", []string{"--node-name=n", "--symlink-root=/"}, `--symlink-root must be an absolute path other than /, got "/"`},
		{"root symlink root, unclean", []string{"--node-name=n", "--symlink-root=//."}, `--symlink-root must be an absolute path other than /`},
		{"empty symlink root", []string{"--node-name=n", "--symlink-root="}, `--symlink-root must be an absolute path`},
		{"relative mountinfo", []string{"--node-name=n", "--mountinfo-path=proc/1/mountinfo"}, `--mountinfo-path must be an absolute path`},
		{"unknown flag", []string{"--node-name=n", "--bogus"}, "flag provided but not defined: --bogus"},
		{"bad qps", []string{"--node-name=n", "--kube-api-qps=fast"}, `invalid value "fast" for flag --kube-api-qps: parse error`},
		{"zero qps", []string{"--node-name=n", "--kube-api-qps=0"}, "--kube-api-qps must be positive"},
		{"bad burst", []string{"--node-name=n", "--kube-api-burst=-1"}, "--kube-api-burst must be positive"},
		{"bad endpoint", []string{"--node-name=n", "--http-endpoint=8080"}, `--http-endpoint must be host:port, got "8080"`},
		{"bad timeout", []string{"--node-name=n", "--command-timeout=0s"}, "--command-timeout must be positive"},
		{"bad resync", []string{"--node-name=n", "--resync=-1m"}, "--resync must be positive"},
		{"bad duration", []string{"--node-name=n", "--resync=soon"}, `invalid value "soon" for flag --resync`},
		{"positional", []string{"--node-name", "n", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFlags(tc.args, env(nil))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q, want it to contain %q", msg, tc.want)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q spans lines", msg)
			}
		})
	}
}

func TestParseFlagsSeveralErrorsOneLine(t *testing.T) {
	_, err := parseFlags([]string{"--symlink-root=/", "--resync=0s"}, env(nil))
	if err == nil {
		t.Fatal("no error")
	}
	want := `--node-name is required (or set the NODE_NAME environment variable); --symlink-root must be an absolute path other than /, got "/"; --resync must be positive, got 0s`
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestParseFlagsVersionSkipsValidation(t *testing.T) {
	cfg, err := parseFlags([]string{"--version"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.showVersion {
		t.Error("showVersion not set")
	}
}

func TestParseFlagsHelp(t *testing.T) {
	if _, err := parseFlags([]string{"--help"}, env(nil)); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v, want flag.ErrHelp", err)
	}
}
