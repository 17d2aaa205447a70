package main

import (
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/internal/testutil/commandlines"
)

// Every collected upstream and driver command line is accepted as written.
// The collected ones start without a warning; each constructed one (what
// upstream accepts that no manifest uses) starts with one.
func TestCollectedCommandLinesParse(t *testing.T) {
	lines, err := commandlines.Load("testdata/command-lines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	constructed := 0
	for _, line := range lines {
		t.Run(line.Name, func(t *testing.T) {
			cfg, err := parseFlags(line.ExpandedArgs())
			if err != nil {
				t.Fatalf("refused (source %s): %v", line.Source, err)
			}
			warnings := warningsOf(cfg)
			if strings.HasPrefix(line.Name, "constructed,") {
				constructed++
				if warnings == "" {
					t.Error("no warning for a command line no manifest uses")
				}
			} else if warnings != "" {
				t.Errorf("warnings %q (source %s)", warnings, line.Source)
			}
		})
	}
	if constructed == 0 {
		t.Error("no constructed command lines")
	}
}
