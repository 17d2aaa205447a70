package main

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/pkg/features"
)

// Flags and gates upstream added between v5.1.0 and v6.3.0.

func TestLoggingFormats(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		cfg, err := parseFlags([]string{"--logging-format=" + format, "--log-flush-frequency=2s", "-v=4"})
		if err != nil {
			t.Fatalf("%s refused: %v", format, err)
		}
		if cfg.logging.Format != format || cfg.logging.FlushFrequency.Duration.Duration != 2*time.Second || cfg.logging.Verbosity != 4 {
			t.Errorf("%s: got %+v", format, cfg.logging)
		}
	}
}

func TestLoggingFlagsRefusedAsComponentBaseRefusesThem(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--logging-format=yaml"}, "Unsupported log format"},
		{[]string{"--logging-format=json", "--vmodule=controller=5"}, "Only supported for text log format"},
		{[]string{"--logging-format=json", "--logtostderr=false"}, "does not honour klog's --logtostderr"},
		{[]string{"--logging-format=json", "--log-json-split-stream"}, "LoggingAlphaOptions is disabled"},
		{[]string{"--log-text-info-buffer-size=1Ki"}, "LoggingAlphaOptions is disabled"},
		{[]string{"--log-flush-frequency=0s"}, "Must be greater than zero"},
	} {
		_, err := parseFlags(tc.args)
		if err == nil {
			t.Errorf("%v accepted", tc.args)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "logging flags: ") {
			t.Errorf("%v: %q does not say %q", tc.args, err, tc.want)
		}
	}
}

func TestSplitStreamWithLoggingAlphaOptions(t *testing.T) {
	cfg, err := parseFlags([]string{"--feature-gates=LoggingAlphaOptions=true", "--logging-format=json", "--log-json-split-stream", "--log-json-info-buffer-size=4Ki"})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.logging.Options.JSON.SplitStream || cfg.logging.Options.JSON.InfoBufferSize.Value() != 4096 {
		t.Errorf("got %+v", cfg.logging.Options.JSON)
	}
}

func TestV5KlogFlagsStillAccepted(t *testing.T) {
	if _, err := parseFlags([]string{"--logtostderr", "--alsologtostderr=false", "--stderrthreshold=2", "--v=3", "--vmodule=provision*=5"}); err != nil {
		t.Fatal(err)
	}
}

func TestLeaderElectionLabels(t *testing.T) {
	cfg, err := parseFlags([]string{"--leader-election", "--leader-election-labels=app:csi,example.com/tier:storage", "--leader-election-labels=zone:a"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"app": "csi", "example.com/tier": "storage", "zone": "a"}
	if !maps.Equal(cfg.leaderElectionLabels, want) {
		t.Errorf("labels %v, want %v", cfg.leaderElectionLabels, want)
	}

	for _, bad := range []string{"app=csi", "app:csi:x", "-app:csi", "app:bad value"} {
		_, err := parseFlags([]string{"--leader-election-labels=" + bad})
		if err == nil || !strings.Contains(err.Error(), "--leader-election-labels") {
			t.Errorf("%q: got %v, want an error naming the flag", bad, err)
		}
	}
}

func TestAutomaxprocsAccepted(t *testing.T) {
	for _, args := range [][]string{{"--automaxprocs"}, {"--automaxprocs=true"}, {"--automaxprocs=false"}} {
		cfg, err := parseFlags(args)
		if err != nil {
			t.Fatalf("%v refused: %v", args, err)
		}
		if cfg.automaxprocs != (args[0] != "--automaxprocs=false") {
			t.Errorf("%v: automaxprocs %v", args, cfg.automaxprocs)
		}
	}
}

func TestSnapshotOrphanSweepInterval(t *testing.T) {
	for _, v := range []string{"0", "30s", "1h"} {
		if _, err := parseFlags([]string{"--snapshot-orphan-sweep-interval=" + v}); err != nil {
			t.Errorf("%s refused: %v", v, err)
		}
	}
}

func TestV6GateSetAndV5Gates(t *testing.T) {
	cfg, err := parseFlags([]string{"--feature-gates=ReleaseLeaderElectionOnExit=true,Topology=true", "--feature-gates=HonorPVReclaimPolicy=true"})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.gates.Enabled(features.ReleaseLeaderElectionOnExit) {
		t.Error("ReleaseLeaderElectionOnExit must be on")
	}
}

// Upstream's --feature-gates also takes the API server's gates, which
// k8s.io/apiserver registers in the gate upstream sets: with their locks,
// and listed in the help. They change nothing here (see warnings).
func TestServerGatesAsUpstream(t *testing.T) {
	cfg, err := parseFlags([]string{"--feature-gates=AllBeta=false,WatchList=false,ComponentFlagz=true,StorageVersionAPI=true"})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if cfg.gates.Enabled("WatchList") || !cfg.gates.Enabled("StorageVersionAPI") {
		t.Error("server gates not set as written")
	}
	for _, locked := range []string{"APIServerTracing=false", "SeparateCacheWatchRPC=true"} {
		if _, err := parseFlags([]string{"--feature-gates=" + locked}); err == nil || !strings.Contains(err.Error(), "locked") {
			t.Errorf("%s: got %v, want upstream's refusal of a locked gate", locked, err)
		}
	}
	var help strings.Builder
	printUsage(&help)
	if !strings.Contains(help.String(), "WatchList=true|false (BETA - default=true)") {
		t.Error("help does not list the server gates, as upstream's does")
	}
}
