package main

import (
	"strings"
	"testing"
)

// Whatever a Deployment's args hold, the sidecar refuses them with one line
// or starts from a configuration, never panicking. Arguments are separated
// by NUL bytes in the fuzzer's input.
func FuzzParseFlags(f *testing.F) {
	f.Add("--csi-address=/csi/csi.sock\x00--leader-election\x00--feature-gates=Topology=true")
	f.Add("--timeout=-1s\x00--worker-threads=0\x00--retry-interval-start=10m")
	f.Add("--volume-name-prefix=\x00--volume-name-uuid-length=99")
	f.Add("--http-endpoint=:8080\x00--metrics-path=/{x}")
	f.Add("-v=5\x00--logging-format=json\x00--vmodule=x=2")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		for _, arg := range args {
			// klog's file flags reach the process's global logger.
			if strings.Contains(arg, "log_dir") || strings.Contains(arg, "log_file") || strings.Contains(arg, "log-file") {
				return
			}
		}
		cfg, err := parseFlags(args)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("refusal %q spans lines", err)
			}
			return
		}
		if cfg == nil {
			t.Fatal("accepted without a configuration")
		}
		for _, w := range cfg.warnings() {
			if strings.Contains(w.msg, "\n") || len(w.keysAndValues)%2 != 0 {
				t.Fatalf("malformed warning %+v", w)
			}
		}
	})
}
